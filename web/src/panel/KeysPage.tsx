// The account's API keys: never the keys themselves, only their number, state and date; a new key
// is shown once, when it is made.
import { useState } from 'react';
import { api } from './api';
import { usePanelI18n } from './panel-i18n';
import { DataTable } from './table';
import { Badge, ErrorBox, PageHeading, ShownOnce, useLoad } from './widgets';

type Key = Awaited<ReturnType<typeof api.keys>>['keys'][number];

export function KeysPage() {
  const { t } = usePanelI18n();
  const { data, error, reload } = useLoad(() => api.keys(), []);
  const [shown, setShown] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [actionError, setActionError] = useState<unknown>(null);

  const act: Act = async (run, confirmText) => {
    if (confirmText && !window.confirm(confirmText)) {
      return;
    }
    setActionError(null);
    setStatus('');
    try {
      const r = await run();
      setShown(r.api_key ?? null);
      if (!r.api_key) {
        setStatus(t.keyRevoked);
      }
      reload();
    } catch (err) {
      setActionError(err);
    }
  };

  return (
    <section aria-labelledby="keys-title">
      <PageHeading>
        <span id="keys-title">{t.keysTitle}</span>
      </PageHeading>
      <ErrorBox error={actionError ?? error} onDismiss={() => setActionError(null)} />
      {data && <p>{t.keysIntro(data.max_active)}</p>}
      {shown && <ShownOnce label={t.newKey} value={shown} testId="new-api-key" />}
      <p role="status" className="hint">
        {status}
      </p>
      <div className="actions">
        <button type="button" className="button button-primary" onClick={() => act(() => api.createKey())} data-testid="create-key">
          {t.createKey}
        </button>
      </div>
      <KeyTable keys={data?.keys} error={error} act={act} />
    </section>
  );
}

type Act = (run: () => Promise<{ id: string; api_key?: string }>, confirmText?: string) => Promise<void>;

/** The keys by number, state and date; rotate and revoke for the active ones, each asked first. */
function KeyTable({ keys, error, act }: { keys: Key[] | undefined; error: unknown; act: Act }) {
  const { t, when } = usePanelI18n();
  return (
    <DataTable<Key>
      rows={keys}
      error={error}
      testId="keys"
      rowKey={(k) => k.id}
      rowTestId={(k) => `key-${k.id}`}
      columns={[
        { label: t.colKey, cell: (k) => `#${k.id}` },
        {
          label: t.colState,
          cell: (k) => <Badge kind={k.active ? 'signed' : 'rejected'}>{k.active ? t.active : t.revoked}</Badge>,
        },
        { label: t.colCreated, cell: (k) => when(k.created_at) },
        {
          label: t.rotate,
          actions: true,
          className: 'row-actions',
          cell: (k) =>
            k.active && (
              <>
                <button
                  type="button"
                  className="button button-secondary button-small"
                  aria-label={`${t.rotate} #${k.id}`}
                  onClick={() => act(() => api.rotateKey(k.id), t.confirmRotate(`#${k.id}`))}
                >
                  {t.rotate}
                </button>
                <button
                  type="button"
                  className="button button-danger-outline button-small"
                  aria-label={`${t.revoke} #${k.id}`}
                  onClick={() => act(() => api.revokeKey(k.id), t.confirmRevoke(`#${k.id}`))}
                >
                  {t.revoke}
                </button>
              </>
            ),
        },
      ]}
    />
  );
}
