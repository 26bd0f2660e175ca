// The webhook's subscriptions per event (POST/GET/DELETE /api/subscriptions through the panel): a
// URL that receives one event kind only, with its own secret, shown once when it is added.
import { type FormEvent, useState } from 'react';
import { api } from './api';
import { formatDateTime, usePanelI18n } from './panel-i18n';
import { Badge, ErrorBox, ShownOnce, useLoad } from './widgets';

export function Subscriptions() {
  const { t, lang } = usePanelI18n();
  const { data, error, reload } = useLoad(() => api.subscriptions(), []);
  const [event, setEvent] = useState('');
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [actionError, setActionError] = useState<unknown>(null);
  const chosen = event || data?.event_kinds[0] || '';

  const add = async (e: FormEvent) => {
    e.preventDefault();
    setActionError(null);
    setStatus('');
    try {
      setSecret((await api.addSubscription(chosen, url)).secret);
      setUrl('');
      reload();
    } catch (err) {
      setActionError(err);
    }
  };
  const remove = async (id: string, ev: string, to: string) => {
    if (!window.confirm(t.confirmDeleteSubscription(ev, to))) {
      return;
    }
    setActionError(null);
    setSecret(null);
    try {
      await api.deleteSubscription(id);
      setStatus(t.subscriptionDeleted);
      reload();
    } catch (err) {
      setActionError(err);
    }
  };

  return (
    <div className="card">
      <h2 className="section-title">{t.subscriptionsTitle}</h2>
      <p className="hint">{t.subscriptionsIntro}</p>
      <ErrorBox error={actionError ?? error} onDismiss={() => setActionError(null)} />
      <form className="form" onSubmit={add}>
        <label className="field-label" htmlFor="sub-event">
          {t.subEventLabel}
        </label>
        <select id="sub-event" className="text-input" value={chosen} onChange={(e) => setEvent(e.target.value)}>
          {(data?.event_kinds ?? []).map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
        <label className="field-label" htmlFor="sub-url">
          {t.subUrlLabel}
        </label>
        <input
          id="sub-url"
          className="text-input"
          type="url"
          required
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          placeholder="https://"
        />
        <div className="actions">
          <button type="submit" className="button button-primary" disabled={!data} data-testid="add-subscription">
            {t.addSubscription}
          </button>
        </div>
      </form>
      {secret && <ShownOnce label={t.subscriptionSecret} value={secret} testId="subscription-secret" />}
      <p role="status" className="hint">
        {status}
      </p>
      {!data ? (
        !error && <p className="loading">{t.loading}</p>
      ) : data.subscriptions.length === 0 ? (
        <p>{t.noSubscriptions}</p>
      ) : (
        <table className="data-table" data-testid="subscriptions">
          <thead>
            <tr>
              <th scope="col">{t.colEvent}</th>
              <th scope="col">{t.colUrl}</th>
              <th scope="col">{t.colState}</th>
              <th scope="col">{t.colSubCreated}</th>
              <th scope="col">
                <span className="visually-hidden">{t.deleteSubscription}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {data.subscriptions.map((s) => (
              <tr key={s.id} data-testid={`subscription-${s.id}`}>
                <td data-label={t.colEvent}>
                  <code>{s.event}</code>
                </td>
                <td data-label={t.colUrl} className="url-cell">
                  {s.url}
                </td>
                <td data-label={t.colState}>
                  <Badge kind={s.status}>{t.subStatus[s.status] ?? s.status}</Badge>
                  {s.disabled_reason && <div className="muted small">{s.disabled_reason}</div>}
                </td>
                <td data-label={t.colSubCreated}>{formatDateTime(s.created_at, lang)}</td>
                <td>
                  <button
                    type="button"
                    className="button button-secondary button-small"
                    onClick={() => remove(s.id, s.event, s.url)}
                    aria-label={`${t.deleteSubscription}: ${s.event} ${s.url}`}
                  >
                    {t.deleteSubscription}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
