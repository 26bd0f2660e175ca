// The account's bulk runs, newest first, each linked to its page; the same answer carries the
// service's row limit, which the preparing form says before sending.
import { useState } from 'react';
import { api } from '../api';
import { usePanelI18n } from '../panel-i18n';
import { DataTable } from '../table';
import { Badge, ErrorBox, Link, useLoad } from '../widgets';

type Runs = Awaited<ReturnType<typeof api.bulkRuns>>;
type Run = Runs['runs'][number];

export function useBulkRuns() {
  const [offset, setOffset] = useState(0);
  const { data, error } = useLoad(() => api.bulkRuns({ offset: String(offset) }), [offset]);
  return { data, error, offset, setOffset };
}

export const runBadge = (state: string) => (state === 'completed' ? 'completed' : state === 'stopped' ? 'failed' : 'pending');

export function BulkRunsList({ runs }: { runs: ReturnType<typeof useBulkRuns> }) {
  const { t, when } = usePanelI18n();
  const { data, error, offset, setOffset } = runs;
  return (
    <div className="card">
      <h2 className="section-title">{t.runsTitle}</h2>
      <ErrorBox error={error} />
      <DataTable<Run>
        rows={data?.runs}
        error={error}
        testId="bulk-runs"
        empty={t.noRuns}
        emptyTestId="bulk-no-runs"
        rowKey={(r) => r.bulk_id}
        rowTestId={(r) => `bulk-run-${r.bulk_id}`}
        columns={[
          {
            // Not "Created": the column of rows created says that (a table's labels are its keys).
            label: t.colRun,
            cell: (r) => <Link href={`/panel/bulk/${encodeURIComponent(r.bulk_id)}`}>{when(r.created_at)}</Link>,
          },
          { label: t.colState, cell: (r) => <Badge kind={runBadge(r.state)}>{t.runState[r.state] ?? r.state}</Badge> },
          { label: t.colTotal, cell: (r) => r.total },
          { label: t.countCreated, cell: (r) => r.created },
          { label: t.countRefused, cell: (r) => r.refused },
        ]}
      />
      {data && (offset > 0 || data.next_offset !== null) && (
        <nav className="pager" aria-label={t.runsTitle}>
          <button
            type="button"
            className="button button-secondary"
            disabled={offset === 0}
            onClick={() => setOffset(Math.max(0, offset - 20))}
          >
            {t.previous}
          </button>
          <button
            type="button"
            className="button button-secondary"
            disabled={data.next_offset === null}
            onClick={() => data.next_offset !== null && setOffset(data.next_offset)}
          >
            {t.next}
          </button>
        </nav>
      )}
    </div>
  );
}
