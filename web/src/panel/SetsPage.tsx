// The account's document sets, read-only: newest first, filtered by state, name and creation
// dates, in pages; each opened in place to show its documents and signers as
// GET /api/documentset/{uuid} gives them.
import type { ListedSets } from './api';
import type { SET_STATUSES } from '../../../src/schemas/sets.js';
import { api } from './api';
import { ListFilters, useFilteredList } from './filters';
import { usePanelI18n } from './panel-i18n';
import { DataTable, Pager } from './table';
import { Badge, ErrorBox, Link, PageHeading, useOpened } from './widgets';

type ListedSet = ListedSets['sets'][number];
// The schema's list by hand: importing its value would bring the schema library into the page.
const STATES: readonly (typeof SET_STATUSES)[number][] = ['OPEN', 'CLOSED', 'COMPLETED', 'REJECTED', 'EXPIRED', 'CANCELLED'];

export function SetsPage() {
  const { t, when } = usePanelI18n();
  const { data, error, reload, pages, apply, filtered } = useFilteredList(api.sets);
  const { open, error: openError, show, isOpen, dismiss } = useOpened(api.set, (x) => x.uuid);
  return (
    <section aria-labelledby="sets-title">
      <PageHeading>
        <span id="sets-title">{t.setsTitle}</span>
      </PageHeading>
      <ListFilters
        idPrefix="sf"
        searchLabel={t.setSearchLabel}
        searchHint={t.setSearchHint}
        states={STATES.map((s) => [s, t.setStatus[s]])}
        onApply={apply}
      />
      <ErrorBox error={openError ?? error} onDismiss={openError ? dismiss : reload} />
      <DataTable<ListedSet>
        rows={data?.sets}
        error={error}
        testId="sets"
        // Filters that match nothing say so; an account without sets says that instead.
        empty={filtered ? t.noMatchingSets : t.noSets}
        emptyTestId="no-sets"
        rowKey={(x) => x.uuid}
        columns={[
          {
            label: t.colSetName,
            cell: (x) => (
              <button type="button" className="link-button" aria-expanded={isOpen(x.uuid)} onClick={() => show(x.uuid)}>
                {x.name || x.uuid}
              </button>
            ),
          },
          { label: t.colState, cell: (x) => <Badge kind={x.status.toLowerCase()}>{t.setStatus[x.status] ?? x.status}</Badge> },
          { label: t.colDocuments, cell: (x) => x.documents },
          { label: t.colCreated, cell: (x) => when(x.created_at) },
          { label: t.colExpires, cell: (x) => (x.expires_at ? when(x.expires_at) : '—') },
        ]}
      />
      {data && <Pager pages={pages} nextToken={data.nextToken} numbered />}
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
