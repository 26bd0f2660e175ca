// The panel's lists: one table markup for all of them (a header row, each cell labelled with its
// column for the narrow layout, where a cell becomes a labelled line), its loading and empty
// states, and the pager of the lists that come in pages of an opaque token.
import { type ReactNode, useState } from 'react';
import { usePanelI18n } from './panel-i18n';

export interface Column<T> {
  /** The header, and the cell's label in the narrow layout. */
  label: string;
  /** A column of buttons: its header is read by screen readers only, and its cells carry no label. */
  actions?: boolean;
  className?: string;
  cell: (row: T) => ReactNode;
}

/**
 * The rows as a table; while they load (`rows` null) the loading line, unless `error` is shown
 * elsewhere; no rows: the `empty` line when given, else the table with its header alone.
 */
export function DataTable<T>({
  rows,
  error,
  columns,
  rowKey,
  rowTestId,
  testId,
  empty,
  emptyTestId,
}: {
  rows: readonly T[] | null | undefined;
  error?: unknown;
  columns: Column<T>[];
  rowKey: (row: T) => string;
  rowTestId?: (row: T) => string;
  testId?: string;
  empty?: ReactNode;
  emptyTestId?: string;
}) {
  const { t } = usePanelI18n();
  if (!rows) {
    return error ? null : <p className="loading">{t.loading}</p>;
  }
  if (rows.length === 0 && empty !== undefined) {
    return <p data-testid={emptyTestId}>{empty}</p>;
  }
  return (
    <table className="data-table" data-testid={testId}>
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c.label} scope="col">
              {c.actions ? <span className="visually-hidden">{c.label}</span> : c.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)} data-testid={rowTestId?.(row)}>
            {columns.map((c) => (
              <td key={c.label} data-label={c.actions ? undefined : c.label} className={c.className}>
                {c.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Where a paged list is: the tokens of the pages before the current one, and the current page's. */
export function usePages() {
  const [tokens, setTokens] = useState<(string | undefined)[]>([undefined]);
  return {
    token: tokens[tokens.length - 1],
    number: tokens.length,
    /** Back to the first page (the filters changed). */
    reset: () => setTokens([undefined]),
    previous: () => setTokens((all) => (all.length > 1 ? all.slice(0, -1) : all)),
    next: (token: string) => setTokens((all) => [...all, token]),
  };
}

export type Pages = ReturnType<typeof usePages>;

/** Previous and next, shown once there is more than one page; `numbered` also says which page this is. */
export function Pager({ pages, nextToken, numbered = false }: { pages: Pages; nextToken: string | undefined; numbered?: boolean }) {
  const { t } = usePanelI18n();
  if (pages.number <= 1 && !nextToken) {
    return null;
  }
  return (
    <nav className="pager" aria-label={t.pageOf(pages.number)}>
      <button type="button" className="button button-secondary" disabled={pages.number <= 1} onClick={pages.previous}>
        {t.previous}
      </button>
      {numbered && <span>{t.pageOf(pages.number)}</span>}
      <button type="button" className="button button-secondary" disabled={!nextToken} onClick={() => nextToken && pages.next(nextToken)}>
        {t.next}
      </button>
    </nav>
  );
}
