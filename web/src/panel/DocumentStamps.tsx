// A document's NOM-151 stamps (GET /api/document/{ticket}/stamps through the panel): which
// rendition, the authority, the time, and a link to the exact bytes each covers, which
// `openssl ts -verify -data` checks against the token.
import { api, stampedBytesUrl } from './api';
import { formatDateTime, usePanelI18n } from './panel-i18n';
import { ErrorBox, useLoad } from './widgets';

export function DocumentStamps({ ticket }: { ticket: string }) {
  const { t, lang } = usePanelI18n();
  const { data, error, reload } = useLoad(() => api.stamps(ticket), [ticket]);
  return (
    <div className="card">
      <h2 className="section-title">{t.stampsTitle}</h2>
      <ErrorBox error={error} onDismiss={reload} />
      {!data ? (
        !error && <p className="loading">{t.loading}</p>
      ) : data.stamps.length === 0 ? (
        <p data-testid="no-stamps">{t.noStamps}</p>
      ) : (
        <table className="data-table" data-testid="stamps">
          <thead>
            <tr>
              <th scope="col">{t.colRendition}</th>
              <th scope="col">{t.colAuthority}</th>
              <th scope="col">{t.colTime}</th>
              <th scope="col">
                <span className="visually-hidden">{t.stampedBytes}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {data.stamps.map((s) => {
              const rendition = t.renditions[s.rendition] ?? s.rendition;
              const time = formatDateTime(s.gen_time, lang);
              return (
                <tr key={`${s.hash}-${s.serial}`}>
                  <td data-label={t.colRendition}>{rendition}</td>
                  <td data-label={t.colAuthority}>
                    {s.tsa}
                    <div className="muted small">{s.provider_description}</div>
                  </td>
                  <td data-label={t.colTime}>
                    <time dateTime={s.gen_time}>{time}</time>
                  </td>
                  <td>
                    <a href={stampedBytesUrl(ticket, s.hash)} download aria-label={t.stampedBytesOf(rendition, time)}>
                      {t.stampedBytes}
                    </a>
                    <code className="hash muted small" title={s.hash}>
                      {' '}
                      {s.hash.slice(0, 12)}…
                    </code>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}
