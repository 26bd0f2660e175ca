// /panel/bulk: the draft made on the prepare page, sent once per row of a CSV file; without a
// draft, where to make one. The account's earlier runs below either way.
import { useEffect, useState } from 'react';
import { clearDraft, loadDraft, type PanelDraft } from '../draft-store';
import { usePanelI18n } from '../panel-i18n';
import { ErrorBox, Link, PageHeading } from '../widgets';
import { BulkPrepare } from './BulkPrepare';
import { BulkRunsList, useBulkRuns } from './BulkRunsList';
import { DraftSource } from './DraftSource';
import './bulk.css';

export function BulkPage() {
  const { t } = usePanelI18n();
  // undefined: still reading IndexedDB; null: no draft.
  const [draft, setDraft] = useState<PanelDraft | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const runs = useBulkRuns();
  useEffect(() => {
    loadDraft().then(setDraft, (e: unknown) => {
      setError(e);
      setDraft(null);
    });
  }, []);

  const discard = async () => {
    if (window.confirm(t.confirmDiscardDraft)) {
      await clearDraft();
      setDraft(null);
    }
  };

  return (
    <section aria-labelledby="bulk-title">
      <PageHeading>
        <span id="bulk-title">{t.bulkTitle}</span>
      </PageHeading>
      <p>{t.bulkIntro}</p>
      <ErrorBox error={error} onDismiss={() => setError(null)} />
      {draft === undefined ? (
        <p className="loading">{t.loading}</p>
      ) : draft === null ? (
        <div className="card" data-testid="no-draft">
          <p>{t.noDraft}</p>
          <Link href="/panel/send" className="button button-primary">
            {t.prepareLink}
          </Link>
        </div>
      ) : (
        <>
          <DraftSource draft={draft} onDiscard={discard} />
          <BulkPrepare payload={draft.payload} maxRows={runs.data?.max_rows} />
        </>
      )}
      <BulkRunsList runs={runs} />
    </section>
  );
}
