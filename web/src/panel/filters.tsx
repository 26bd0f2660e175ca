// The filters above a list (documents, sets): text, a state, creation dates from and to. The form
// keeps what is typed until Search; Clear empties it and shows everything again. useFilteredList
// loads such a list page by page with the filters applied, as its endpoint takes them.
import { type FormEvent, useState } from 'react';
import { SelectField, TextField } from './fields';
import { usePanelI18n } from './panel-i18n';
import { usePages } from './table';
import { useLoad } from './widgets';

export interface Filters {
  q: string;
  status: string;
  from: string;
  to: string;
}
export const NO_FILTERS: Filters = { q: '', status: '', from: '', to: '' };

/** A date input's day as epoch ms in the browser's time zone: its first or its last millisecond. */
export function dayMs(day: string, end: boolean): string | undefined {
  if (!day) {
    return undefined;
  }
  const start = new Date(`${day}T00:00:00`).getTime();
  return Number.isNaN(start) ? undefined : String(end ? start + 86_399_999 : start);
}

/** What a filtered list asks its endpoint: the filters as the server takes them, and the page. */
export interface ListQuery {
  q: string;
  status: string;
  from?: string;
  to?: string;
  nextToken?: string;
}

/** A list behind ListFilters and a Pager: loaded again whenever the filters or the page change. */
export function useFilteredList<T>(load: (query: ListQuery) => Promise<T>) {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const pages = usePages();
  const loaded = useLoad(
    () =>
      load({
        q: filters.q,
        status: filters.status,
        from: dayMs(filters.from, false),
        to: dayMs(filters.to, true),
        nextToken: pages.token,
      }),
    [filters, pages.token],
  );
  return {
    ...loaded,
    pages,
    /** Whether any filter is set: an empty list then says that nothing matches. */
    filtered: Object.values(filters).some(Boolean),
    /** New filters start again from the first page. */
    apply: (f: Filters) => {
      setFilters(f);
      pages.reset();
    },
  };
}

export function ListFilters({
  idPrefix,
  searchLabel,
  searchHint,
  states,
  onApply,
}: {
  /** Makes the ids of the inputs unique in the page. */
  idPrefix: string;
  searchLabel: string;
  searchHint: string;
  /** The states offered, each with its words. */
  states: [value: string, label: string][];
  onApply: (filters: Filters) => void;
}) {
  const { t } = usePanelI18n();
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const set = (k: keyof Filters) => (e: { target: { value: string } }) => setDraft({ ...draft, [k]: e.target.value });
  const apply = (e: FormEvent) => {
    e.preventDefault();
    onApply(draft);
  };
  return (
    <form className="card filters" onSubmit={apply}>
      <TextField
        box="filter filter-wide"
        id={`${idPrefix}-q`}
        label={searchLabel}
        hint={searchHint}
        type="search"
        value={draft.q}
        onChange={set('q')}
      />
      <SelectField box="filter" id={`${idPrefix}-status`} label={t.statusLabel} value={draft.status} onChange={set('status')}>
        <option value="">{t.anyStatus}</option>
        {states.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </SelectField>
      <TextField box="filter" id={`${idPrefix}-from`} label={t.fromLabel} type="date" value={draft.from} onChange={set('from')} />
      <TextField box="filter" id={`${idPrefix}-to`} label={t.toLabel} type="date" value={draft.to} onChange={set('to')} />
      <div className="actions filter-actions">
        <button type="submit" className="button button-primary">
          {t.search}
        </button>
        <button
          type="button"
          className="button button-secondary"
          onClick={() => {
            setDraft(NO_FILTERS);
            onApply(NO_FILTERS);
          }}
        >
          {t.clear}
        </button>
      </div>
    </form>
  );
}
