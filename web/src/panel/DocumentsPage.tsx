// The documents list: search by name or signer, filter by state and creation dates, page through.
import { api, type ListedDocument } from './api';
import { ListFilters, useFilteredList } from './filters';
import { usePanelI18n } from './panel-i18n';
import { DataTable, Pager } from './table';
import { Badge, ErrorBox, Link, PageHeading } from './widgets';

const STATES = ['pending', 'completed', 'rejected', 'expired', 'cancelled', 'draft', 'deleted'] as const;

export function DocumentsPage() {
  const { t, when } = usePanelI18n();
  const { data, error, reload, pages, apply } = useFilteredList(api.documents);

  return (
    <section aria-labelledby="documents-title">
      <PageHeading>
        <span id="documents-title">{t.documentsTitle}</span>
      </PageHeading>
      <ListFilters
        idPrefix="f"
        searchLabel={t.searchLabel}
        searchHint={t.searchHint}
        states={STATES.map((s) => [s, t.status[s]])}
        onApply={apply}
      />
      <ErrorBox error={error} onDismiss={reload} />
      <DataTable<ListedDocument>
        rows={data?.documents}
        error={error}
        testId="documents"
        empty={t.noDocuments}
        emptyTestId="no-documents"
        rowKey={(d) => d.document_ticket}
        columns={[
          { label: t.colName, cell: (d) => <Link href={`/panel/documents/${encodeURIComponent(d.document_ticket)}`}>{d.name}</Link> },
          { label: t.colStatus, cell: (d) => <Badge kind={d.status}>{t.status[d.status] ?? d.status}</Badge> },
          { label: t.colProgress, cell: (d) => t.progress(d.signed_count, d.signers.length) },
          { label: t.colCreated, cell: (d) => when(d.created_at) },
        ]}
      />
      {data && <Pager pages={pages} nextToken={data.nextToken} numbered />}
    </section>
  );
}
