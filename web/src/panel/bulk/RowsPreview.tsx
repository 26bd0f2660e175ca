// The rows as they will be sent, each with the problems found in it, the count of rows with
// problems, and a choice to see those alone (in a long file they are easy to miss).
import { useState } from 'react';
import { usePanelI18n } from '../panel-i18n';
import { DataTable } from '../table';
import type { PreparedRows, RowProblem } from './csv-rows';
import type { Placeholder } from './placeholders';

/** Rows shown at most: the page stays quick with a thousand. */
const SHOWN = 100;

interface PreviewRow {
  index: number;
  row: Record<string, unknown>;
  problems: RowProblem[];
}

function valueAt(row: Record<string, unknown>, path: string): string {
  let v: unknown = row;
  for (const k of path.split('.')) {
    v = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[k] : undefined;
  }
  return v === undefined ? '' : String(v);
}

export function RowsPreview({ prepared, placeholders }: { prepared: PreparedRows; placeholders: Placeholder[] }) {
  const { t } = usePanelI18n();
  const [onlyProblems, setOnlyProblems] = useState(false);
  const all: PreviewRow[] = prepared.rows.map((row, index) => ({ index, row, problems: prepared.problems[index] }));
  const bad = all.filter((r) => r.problems.length > 0);
  const listed = (onlyProblems ? bad : all).slice(0, SHOWN);
  const say = (p: RowProblem) => {
    switch (p.kind) {
      case 'missing':
        return t.problemMissing(p.path);
      case 'number':
        return t.problemNumber(p.path, p.value);
      case 'signer_data':
        return t.problemSignerData(p.signer + 1, p.value);
      case 'signer_email':
        return t.problemSignerEmail(p.signer + 1, p.value);
    }
  };
  return (
    <>
      <h3 className="bulk-subtitle">{t.previewTitle}</h3>
      <p data-testid="bulk-problem-count" className={bad.length ? 'row-problem' : undefined}>
        {t.problemCount(bad.length, all.length)}
      </p>
      {bad.length > 0 && (
        <label>
          <input type="checkbox" checked={onlyProblems} onChange={(e) => setOnlyProblems(e.target.checked)} /> {t.onlyProblems}
        </label>
      )}
      <DataTable<PreviewRow>
        rows={listed}
        testId="bulk-preview"
        rowKey={(r) => String(r.index)}
        rowTestId={(r) => `bulk-row-${r.index}`}
        columns={[
          { label: t.colRow, cell: (r) => r.index + 1 },
          ...placeholders.map((p) => ({ label: p.path, cell: (r: PreviewRow) => valueAt(r.row, p.path) })),
          {
            label: t.colProblems,
            cell: (r) => (r.problems.length === 0 ? t.noProblem : <span className="row-problem">{r.problems.map(say).join('; ')}</span>),
          },
        ]}
      />
      {listed.length < (onlyProblems ? bad : all).length && (
        <p className="hint">{t.previewMore(listed.length, (onlyProblems ? bad : all).length)}</p>
      )}
    </>
  );
}
