// What the run is made from: the draft's file or template, and each signer with the placeholders
// its name and data hold, so that the person sees which columns the CSV file needs.
import type { PanelDraft } from '../draft-store';
import { usePanelI18n } from '../panel-i18n';
import { DataTable } from '../table';
import { type DraftSigner, draftPlaceholders, draftSigners } from './placeholders';

function sourceLine(draft: PanelDraft, t: ReturnType<typeof usePanelI18n>['t']): string {
  const p = draft.payload;
  const template = (p.template as { title?: unknown } | undefined)?.title;
  if (typeof template === 'string') {
    return t.bulkSourceTemplate(template);
  }
  if (typeof p.b64_doc === 'string') {
    const fileName = draft.ui?.fileName;
    return t.sourceFile(typeof fileName === 'string' ? fileName : typeof p.name === 'string' ? p.name : 'PDF');
  }
  if (typeof p.url_doc === 'string') {
    return t.sourceUrl(p.url_doc);
  }
  return t.sourceNone;
}

export function DraftSource({ draft, onDiscard }: { draft: PanelDraft; onDiscard: () => void }) {
  const { t, when } = usePanelI18n();
  const placeholders = draftPlaceholders(draft.payload);
  return (
    <div className="card bulk-source" data-testid="bulk-source">
      <h2 className="section-title">{t.sourceTitle}</h2>
      <p data-testid="bulk-source-line">{sourceLine(draft, t)}</p>
      <p className="hint">{t.bulkDraftSaved(when(new Date(draft.savedAt).toISOString()))}</p>
      <h3 className="bulk-subtitle">{t.draftSignersTitle}</h3>
      <DataTable<DraftSigner>
        rows={draftSigners(draft.payload)}
        testId="bulk-signers"
        rowKey={(s) => String(s.index)}
        columns={[
          { label: t.colSigner, cell: (s) => s.index + 1 },
          { label: t.colVerification, cell: (s) => t.authorities[s.authority] ?? s.authority },
          { label: t.colSignerName, cell: (s) => <code>{s.name}</code> },
          { label: t.colData, cell: (s) => <code>{s.data}</code> },
        ]}
      />
      <h3 className="bulk-subtitle">{t.placeholdersTitle}</h3>
      {placeholders.length === 0 ? (
        <p>{t.noPlaceholders}</p>
      ) : (
        <ul data-testid="bulk-placeholders">
          {placeholders.map((p) => (
            <li key={p.path}>
              <code className="placeholder">{`{{row.${p.path}}}`}</code>
            </li>
          ))}
        </ul>
      )}
      <div className="actions">
        <button type="button" className="button button-secondary" onClick={onDiscard}>
          {t.discardDraft}
        </button>
      </div>
    </div>
  );
}
