// The account's document sets, read-only: newest first, each opened in place to show its documents
// and signers as GET /api/documentset/{uuid} gives them.
import { useState } from 'react';
import type { DocumentSet } from '../../../src/schemas/sets.js';
import { api } from './api';
import { formatDateTime, usePanelI18n } from './panel-i18n';
import { Badge, ErrorBox, Link, PageHeading, useLoad } from './widgets';

export function SetsPage() {
  const { t, lang } = usePanelI18n();
  const [before, setBefore] = useState<string | undefined>(undefined);
  const { data, error, reload } = useLoad(() => api.sets(before), [before]);
  const [open, setOpen] = useState<DocumentSet | null>(null);
  const [openError, setOpenError] = useState<unknown>(null);
  const show = async (uuid: string) => {
    setOpenError(null);
    try {
      setOpen(open?.uuid === uuid ? null : await api.set(uuid));
    } catch (err) {
      setOpenError(err);
    }
  };
  return (
    <section aria-labelledby="sets-title">
      <PageHeading>
        <span id="sets-title">{t.setsTitle}</span>
      </PageHeading>
      <ErrorBox error={openError ?? error} onDismiss={openError ? () => setOpenError(null) : reload} />
      {!data ? (
        !error && <p className="loading">{t.loading}</p>
      ) : data.sets.length === 0 ? (
        <p>{t.noSets}</p>
      ) : (
        <table className="data-table" data-testid="sets">
          <thead>
            <tr>
              <th scope="col">{t.colSetName}</th>
              <th scope="col">{t.colState}</th>
              <th scope="col">{t.colDocuments}</th>
              <th scope="col">{t.colCreated}</th>
              <th scope="col">{t.colExpires}</th>
            </tr>
          </thead>
          <tbody>
            {data.sets.map((x) => (
              <tr key={x.uuid}>
                <td data-label={t.colSetName}>
                  <button type="button" className="link-button" aria-expanded={open?.uuid === x.uuid} onClick={() => show(x.uuid)}>
                    {x.name || x.uuid}
                  </button>
                </td>
                <td data-label={t.colState}>
                  <Badge kind={x.status.toLowerCase()}>{t.setStatus[x.status] ?? x.status}</Badge>
                </td>
                <td data-label={t.colDocuments}>{x.documents}</td>
                <td data-label={t.colCreated}>{formatDateTime(x.created_at, lang)}</td>
                <td data-label={t.colExpires}>{x.expires_at ? formatDateTime(x.expires_at, lang) : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {data?.next_before && (
        <div className="actions">
          <button type="button" className="button button-secondary" onClick={() => setBefore(data.next_before)}>
            {t.olderSets}
          </button>
        </div>
      )}
      {open && (
        <div className="card" data-testid="set-detail">
          <h2 className="section-title">{open.name || open.uuid}</h2>
          {open.documents.length === 0 ? (
            <p>{t.setEmpty}</p>
          ) : (
            <ul className="signers">
              {open.documents.map((d) => (
                <li key={d.document_ticket} className="signer">
                  <Link href={`/panel/documents/${encodeURIComponent(d.document_ticket)}`}>{d.name ?? d.document_ticket}</Link>
                  <Badge kind={d.status}>{t.status[d.status] ?? d.status}</Badge>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}
