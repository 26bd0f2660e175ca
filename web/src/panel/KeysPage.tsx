// The account's API keys: never the keys themselves, only their number, state and date; a new key
// is shown once, when it is made.
import { useState } from 'react';
import { api } from './api';
import { formatDateTime, usePanelI18n } from './panel-i18n';
import { Badge, ErrorBox, PageHeading, ShownOnce, useLoad } from './widgets';

export function KeysPage() {
  const { t, lang } = usePanelI18n();
  const { data, error, reload } = useLoad(() => api.keys(), []);
  const [shown, setShown] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [actionError, setActionError] = useState<unknown>(null);

  const act = async (run: () => Promise<{ id: string; api_key?: string }>, confirmText?: string) => {
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
      {!data ? (
        !error && <p className="loading">{t.loading}</p>
      ) : (
        <table className="data-table" data-testid="keys">
          <thead>
            <tr>
              <th scope="col">{t.colKey}</th>
              <th scope="col">{t.colState}</th>
              <th scope="col">{t.colCreated}</th>
              <th scope="col">
                <span className="visually-hidden">{t.rotate}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {data.keys.map((k) => (
              <tr key={k.id} data-testid={`key-${k.id}`}>
                <td data-label={t.colKey}>#{k.id}</td>
                <td data-label={t.colState}>
                  <Badge kind={k.active ? 'signed' : 'rejected'}>{k.active ? t.active : t.revoked}</Badge>
                </td>
                <td data-label={t.colCreated}>{formatDateTime(k.created_at, lang)}</td>
                <td className="row-actions">
                  {k.active && (
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
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
