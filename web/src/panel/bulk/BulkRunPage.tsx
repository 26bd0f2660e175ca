// /panel/bulk/:id: one run, followed while it runs: a progress bar, the counts, and each row's
// outcome (its document, or the error a single create gives, with the field it names).
import { useState } from 'react';
import { usePanelI18n } from '../panel-i18n';
import { DataTable } from '../table';
import { Badge, ErrorBox, Link, PageHeading } from '../widgets';
import { runBadge } from './BulkRunsList';
import { useBulkRun } from './use-bulk-run';
import './bulk.css';

type Outcome = { index: number; document_ticket?: string; error?: { code: string; message: string; details?: unknown } };

/** Rows per page of outcomes, as GET /panel/api/bulk/:id gives them by default. */
const PAGE = 100;

/** The field the error names, when its message does not already say it. */
function fieldOf(error: Outcome['error']): string | undefined {
  const d = error?.details;
  const f = typeof d === 'object' && d !== null ? (d as { field?: unknown }).field : undefined;
  return typeof f === 'string' && !error?.message.includes(f) ? f : undefined;
}

export function BulkRunPage({ bulkId }: { bulkId: string }) {
  const { t, when } = usePanelI18n();
  const [offset, setOffset] = useState(0);
  const { run, error } = useBulkRun(bulkId, offset);
  const done = run ? run.total - run.pending : 0;
  const percent = run && run.total > 0 ? Math.round((done / run.total) * 100) : 0;
  return (
    <section aria-labelledby="bulk-run-title">
      <PageHeading>
        <span id="bulk-run-title">{t.runTitle}</span>
      </PageHeading>
      <p>
        <Link href="/panel/bulk">{t.backToBulk}</Link>
      </p>
      <ErrorBox error={error} />
      {run && (
        <div className="card" data-testid="bulk-run">
          <p>
            <Badge kind={runBadge(run.state)}>
              <span data-testid="bulk-run-state">{t.runState[run.state] ?? run.state}</span>
            </Badge>{' '}
            {when(run.created_at)}
          </p>
          <div
            className="progress"
            role="progressbar"
            aria-label={t.progressLabel}
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={percent}
            aria-valuetext={t.runCounts(done, run.total)}
            data-testid="bulk-progress"
          >
            <div className="progress-done" style={{ width: `${percent}%` }} />
          </div>
          <p>{t.runCounts(done, run.total)}</p>
          <dl className="bulk-counts">
            <div>
              <dt>{t.countCreated}</dt>
              <dd data-testid="bulk-created">{run.created}</dd>
            </div>
            <div>
              <dt>{t.countRefused}</dt>
              <dd data-testid="bulk-refused">{run.refused - run.not_made}</dd>
            </div>
            <div>
              <dt>{t.countNotMade}</dt>
              <dd data-testid="bulk-not-made">{run.not_made}</dd>
            </div>
          </dl>
          {run.state === 'stopped' && <p className="row-problem">{t.runStopped}</p>}
        </div>
      )}
      {run && (
        <div className="card">
          <h2 className="section-title">{t.outcomesTitle}</h2>
          <DataTable<Outcome>
            rows={run.rows as Outcome[]}
            testId="bulk-outcomes"
            empty={t.noOutcomes}
            rowKey={(r) => String(r.index)}
            rowTestId={(r) => `bulk-outcome-${r.index}`}
            columns={[
              { label: t.colRow, cell: (r) => r.index + 1 },
              {
                label: t.colOutcome,
                cell: (r) =>
                  r.document_ticket ? (
                    <Link href={`/panel/documents/${encodeURIComponent(r.document_ticket)}`}>{t.openDocument}</Link>
                  ) : (
                    <span className="row-problem">
                      <code>{r.error?.code}</code> {r.error?.message}
                      {fieldOf(r.error) && <> ({t.errorField(fieldOf(r.error) ?? '')})</>}
                    </span>
                  ),
              },
            ]}
          />
          {(offset > 0 || run.next_offset !== null) && (
            <nav className="pager" aria-label={t.outcomesTitle}>
              <button
                type="button"
                className="button button-secondary"
                disabled={offset === 0}
                onClick={() => setOffset(Math.max(0, offset - PAGE))}
              >
                {t.previous}
              </button>
              <button
                type="button"
                className="button button-secondary"
                disabled={run.next_offset === null}
                onClick={() => run.next_offset !== null && setOffset(run.next_offset)}
              >
                {t.next}
              </button>
            </nav>
          )}
        </div>
      )}
    </section>
  );
}
