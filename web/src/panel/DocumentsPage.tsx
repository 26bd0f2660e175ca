// The documents list: search by name or signer, filter by state and creation dates, page through.
import { type FormEvent, useState } from 'react';
import { api, type DocumentListing } from './api';
import { formatDateTime, usePanelI18n } from './panel-i18n';
import { Badge, ErrorBox, Link, PageHeading, useLoad } from './widgets';

const STATES = ['pending', 'completed', 'rejected', 'expired', 'cancelled', 'draft', 'deleted'] as const;

interface Filters {
  q: string;
  status: string;
  from: string;
  to: string;
}
const EMPTY: Filters = { q: '', status: '', from: '', to: '' };

/** A date input's day as epoch ms in the browser's time zone: its first or its last millisecond. */
function dayMs(day: string, end: boolean): string | undefined {
  if (!day) {
    return undefined;
  }
  const start = new Date(`${day}T00:00:00`).getTime();
  return Number.isNaN(start) ? undefined : String(end ? start + 86_399_999 : start);
}

export function DocumentsPage() {
  const { t, lang } = usePanelI18n();
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [filters, setFilters] = useState<Filters>(EMPTY);
  // The tokens of the pages before the current one, and the current page's.
  const [tokens, setTokens] = useState<(string | undefined)[]>([undefined]);
  const token = tokens[tokens.length - 1];
  const { data, error, reload } = useLoad<DocumentListing>(
    () =>
      api.documents({
        q: filters.q,
        status: filters.status,
        from: dayMs(filters.from, false),
        to: dayMs(filters.to, true),
        nextToken: token,
      }),
    [filters, token],
  );

  const apply = (e: FormEvent) => {
    e.preventDefault();
    setFilters(draft);
    setTokens([undefined]);
  };

  return (
    <section aria-labelledby="documents-title">
      <PageHeading>
        <span id="documents-title">{t.documentsTitle}</span>
      </PageHeading>
      <form className="card filters" onSubmit={apply}>
        <div className="filter filter-wide">
          <label className="field-label" htmlFor="f-q">
            {t.searchLabel}
          </label>
          <input
            id="f-q"
            className="text-input"
            type="search"
            value={draft.q}
            aria-describedby="f-q-hint"
            onChange={(e) => setDraft({ ...draft, q: e.target.value })}
          />
          <span id="f-q-hint" className="hint">
            {t.searchHint}
          </span>
        </div>
        <div className="filter">
          <label className="field-label" htmlFor="f-status">
            {t.statusLabel}
          </label>
          <select
            id="f-status"
            className="text-input"
            value={draft.status}
            onChange={(e) => setDraft({ ...draft, status: e.target.value })}
          >
            <option value="">{t.anyStatus}</option>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {t.status[s]}
              </option>
            ))}
          </select>
        </div>
        <div className="filter">
          <label className="field-label" htmlFor="f-from">
            {t.fromLabel}
          </label>
          <input
            id="f-from"
            className="text-input"
            type="date"
            value={draft.from}
            onChange={(e) => setDraft({ ...draft, from: e.target.value })}
          />
        </div>
        <div className="filter">
          <label className="field-label" htmlFor="f-to">
            {t.toLabel}
          </label>
          <input
            id="f-to"
            className="text-input"
            type="date"
            value={draft.to}
            onChange={(e) => setDraft({ ...draft, to: e.target.value })}
          />
        </div>
        <div className="actions filter-actions">
          <button type="submit" className="button button-primary">
            {t.search}
          </button>
          <button
            type="button"
            className="button button-secondary"
            onClick={() => {
              setDraft(EMPTY);
              setFilters(EMPTY);
              setTokens([undefined]);
            }}
          >
            {t.clear}
          </button>
        </div>
      </form>
      <ErrorBox error={error} onDismiss={reload} />
      {!data ? (
        !error && <p className="loading">{t.loading}</p>
      ) : data.documents.length === 0 ? (
        <p data-testid="no-documents">{t.noDocuments}</p>
      ) : (
        <table className="data-table" data-testid="documents">
          <thead>
            <tr>
              <th scope="col">{t.colName}</th>
              <th scope="col">{t.colStatus}</th>
              <th scope="col">{t.colProgress}</th>
              <th scope="col">{t.colCreated}</th>
            </tr>
          </thead>
          <tbody>
            {data.documents.map((d) => (
              <tr key={d.document_ticket}>
                <td data-label={t.colName}>
                  <Link href={`/panel/documents/${encodeURIComponent(d.document_ticket)}`}>{d.name}</Link>
                </td>
                <td data-label={t.colStatus}>
                  <Badge kind={d.status}>{t.status[d.status] ?? d.status}</Badge>
                </td>
                <td data-label={t.colProgress}>{t.progress(d.signed_count, d.signers.length)}</td>
                <td data-label={t.colCreated}>{formatDateTime(d.created_at, lang)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {data && (tokens.length > 1 || data.nextToken) && (
        <nav className="pager" aria-label={t.pageOf(tokens.length)}>
          <button
            type="button"
            className="button button-secondary"
            disabled={tokens.length <= 1}
            onClick={() => setTokens(tokens.slice(0, -1))}
          >
            {t.previous}
          </button>
          <span>{t.pageOf(tokens.length)}</span>
          <button
            type="button"
            className="button button-secondary"
            disabled={!data.nextToken}
            onClick={() => setTokens([...tokens, data.nextToken])}
          >
            {t.next}
          </button>
        </nav>
      )}
    </section>
  );
}
