// The CSV file for a run: read in the browser (nothing is sent before Send), each placeholder
// mapped to a column (the same name is chosen at once), the rows with the problems found in
// them, the service's row limit, and Send.
import { type ChangeEvent, useMemo, useState } from 'react';
import type { DraftPayload } from '../draft-store';
import { usePanelI18n } from '../panel-i18n';
import { ErrorBox } from '../widgets';
import { autoMap, type ColumnMap, CsvError, type CsvTable, parseCsv, prepareRows, unmapped } from './csv-rows';
import { draftPlaceholders, draftSigners } from './placeholders';
import { RowsPreview } from './RowsPreview';
import { useBulkSend } from './use-bulk-send';

export function BulkPrepare({ payload, maxRows }: { payload: DraftPayload; maxRows: number | undefined }) {
  const { t } = usePanelI18n();
  const placeholders = useMemo(() => draftPlaceholders(payload), [payload]);
  const signers = useMemo(() => draftSigners(payload), [payload]);
  const [table, setTable] = useState<CsvTable | null>(null);
  const [map, setMap] = useState<ColumnMap>({});
  const [readError, setReadError] = useState('');

  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    setReadError('');
    setTable(null);
    if (!file) {
      return;
    }
    try {
      const read = parseCsv(await file.text());
      setTable(read);
      setMap(autoMap(placeholders, read.columns));
    } catch (err) {
      setReadError(t.csvUnreadable(err instanceof CsvError ? err.message : String(err)));
    }
  };

  const missing = unmapped(placeholders, map);
  const prepared = useMemo(() => (table ? prepareRows(table, placeholders, map, signers) : null), [table, placeholders, map, signers]);
  const overLimit = prepared && maxRows !== undefined && prepared.rows.length > maxRows;
  const ready = prepared && missing.length === 0 && !overLimit ? prepared.rows : null;
  const { send, sending, error, dismiss } = useBulkSend(payload, ready);

  return (
    <div className="card">
      <div className="field bulk-file">
        <label className="field-label" htmlFor="bulk-csv">
          {t.csvLabel}
        </label>
        <input id="bulk-csv" type="file" accept=".csv,text/csv,text/plain" onChange={onFile} aria-describedby="bulk-csv-hint" />
        <span id="bulk-csv-hint" className="hint">
          {t.csvHint} {maxRows !== undefined && <span data-testid="bulk-limit">{t.limitNote(maxRows)}</span>}
        </span>
      </div>
      {readError && (
        <p className="field-error" role="alert">
          {readError}
        </p>
      )}
      {table && (
        <>
          <p role="status">{t.csvRead(table.records.length, table.columns.length)}</p>
          <h3 className="bulk-subtitle">{t.mapTitle}</h3>
          <div className="bulk-map">
            {placeholders.map((p) => (
              <div className="field" key={p.path}>
                <label className="field-label" htmlFor={`map-${p.path}`}>
                  {t.mapLabel(`{{row.${p.path}}}`)}
                </label>
                <select
                  id={`map-${p.path}`}
                  value={map[p.path] ?? ''}
                  onChange={(e) => setMap({ ...map, [p.path]: e.target.value || undefined })}
                  data-testid={`map-${p.path}`}
                >
                  <option value="">{t.noColumn}</option>
                  {table.columns.map((c) => (
                    <option key={c} value={c}>
                      {c}
                    </option>
                  ))}
                </select>
              </div>
            ))}
          </div>
          {missing.length > 0 && (
            <p className="field-error" data-testid="bulk-unmapped">
              {t.unmapped(missing.join(', '))}
            </p>
          )}
        </>
      )}
      {prepared && <RowsPreview prepared={prepared} placeholders={placeholders} />}
      {overLimit && maxRows !== undefined && prepared && (
        <p className="field-error" role="alert" data-testid="bulk-over-limit">
          {t.overLimit(prepared.rows.length, maxRows)}
        </p>
      )}
      <ErrorBox error={error} onDismiss={dismiss} />
      {prepared && (
        <div className="actions">
          <button type="button" className="button button-primary" disabled={!ready || sending} onClick={send} data-testid="bulk-send">
            {sending ? t.sendingBulk : t.sendBulk(prepared.rows.length)}
          </button>
        </div>
      )}
    </div>
  );
}
