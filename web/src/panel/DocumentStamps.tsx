// A document's NOM-151 stamps (GET /api/document/{ticket}/stamps through the panel): which
// rendition, the authority, the time, and a link to the exact bytes each covers, which
// `openssl ts -verify -data` checks against the token.
import type { StampList } from '../../../src/schemas/stamps.js';
import { api, stampedBytesUrl } from './api';
import { usePanelI18n } from './panel-i18n';
import { DataTable } from './table';
import { ErrorBox, useLoad } from './widgets';

type Stamp = StampList['stamps'][number];

export function DocumentStamps({ ticket }: { ticket: string }) {
  const { t, when } = usePanelI18n();
  const { data, error, reload } = useLoad(() => api.stamps(ticket), [ticket]);
  const rendition = (s: Stamp) => t.renditions[s.rendition] ?? s.rendition;
  const time = (s: Stamp) => when(s.gen_time);
  return (
    <div className="card">
      <h2 className="section-title">{t.stampsTitle}</h2>
      <ErrorBox error={error} onDismiss={reload} />
      <DataTable<Stamp>
        rows={data?.stamps}
        error={error}
        testId="stamps"
        empty={t.noStamps}
        emptyTestId="no-stamps"
        rowKey={(s) => `${s.hash}-${s.serial}`}
        columns={[
          { label: t.colRendition, cell: rendition },
          {
            label: t.colAuthority,
            cell: (s) => (
              <>
                {s.tsa}
                <div className="muted small">{s.provider_description}</div>
              </>
            ),
          },
          { label: t.colTime, cell: (s) => <time dateTime={s.gen_time}>{time(s)}</time> },
          {
            label: t.stampedBytes,
            actions: true,
            cell: (s) => (
              <>
                <a href={stampedBytesUrl(ticket, s.hash)} download aria-label={t.stampedBytesOf(rendition(s), time(s))}>
                  {t.stampedBytes}
                </a>
                <code className="hash muted small" title={s.hash}>
                  {' '}
                  {s.hash.slice(0, 12)}…
                </code>
              </>
            ),
          },
        ]}
      />
    </div>
  );
}
