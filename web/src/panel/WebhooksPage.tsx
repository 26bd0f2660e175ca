// The account's webhook: its URL, a new signing secret (shown once), the subscriptions per event,
// and the delivery log with "send again".
import { type FormEvent, useState } from 'react';
import { api, type DeliveryList } from './api';
import { formatDateTime, usePanelI18n } from './panel-i18n';
import { Subscriptions } from './Subscriptions';
import { Badge, ErrorBox, PageHeading, ShownOnce, useLoad } from './widgets';

export function WebhooksPage() {
  const { t } = usePanelI18n();
  const hook = useLoad(() => api.webhook(), []);
  const [url, setUrl] = useState<string | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [notice, setNotice] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [testResult, setTestResult] = useState('');
  const shownUrl = url ?? hook.data?.url ?? '';

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      const r = await api.setWebhook(shownUrl);
      setSecret(r.secret);
      setNotice(t.urlSaved);
      hook.reload();
    } catch (err) {
      setError(err);
    }
  };
  const test = async () => {
    setError(null);
    setNotice('');
    try {
      const r = await api.testEvent();
      setTestResult(r.delivered ? t.testDelivered(r.status!) : t.testFailed(r.error ?? `HTTP ${r.status}`));
    } catch (err) {
      setError(err);
    }
  };
  const rotate = async () => {
    if (!window.confirm(t.confirmRotateSecret)) {
      return;
    }
    setError(null);
    try {
      setSecret((await api.rotateSecret()).secret);
      setNotice('');
    } catch (err) {
      setError(err);
    }
  };

  return (
    <section aria-labelledby="webhooks-title">
      <PageHeading>
        <span id="webhooks-title">{t.webhooksTitle}</span>
      </PageHeading>
      <ErrorBox error={error ?? hook.error} onDismiss={() => setError(null)} />
      <form className="card form" onSubmit={save}>
        <label className="field-label" htmlFor="webhook-url">
          {t.urlLabel}
        </label>
        <input
          id="webhook-url"
          className="text-input"
          type="url"
          required
          value={shownUrl}
          onChange={(e) => setUrl(e.target.value)}
          placeholder="https://"
        />
        {hook.data && !hook.data.url && <p className="hint">{t.noUrl}</p>}
        <div className="actions">
          <button type="submit" className="button button-primary">
            {t.saveUrl}
          </button>
        </div>
        {notice && <p role="status">{notice}</p>}
      </form>
      <div className="card">
        <h2 className="section-title">{t.secretTitle}</h2>
        {secret ? <ShownOnce label={t.newSecret} value={secret} testId="webhook-secret" /> : hook.data?.secret_set && <p>{t.secretSet}</p>}
        <div className="actions">
          <button type="button" className="button button-secondary" onClick={rotate} disabled={!hook.data?.url} data-testid="rotate-secret">
            {t.rotateSecret}
          </button>
          <button type="button" className="button button-secondary" onClick={test} disabled={!hook.data?.url} data-testid="test-event">
            {t.testEvent}
          </button>
        </div>
        <p role="status" data-testid="test-result">
          {testResult}
        </p>
      </div>
      <Subscriptions />
      <Deliveries />
    </section>
  );
}

function Deliveries() {
  const { t, lang } = usePanelI18n();
  const [state, setState] = useState('');
  const [tokens, setTokens] = useState<(string | undefined)[]>([undefined]);
  const { data, error, reload } = useLoad<DeliveryList>(
    () => api.deliveries({ state, nextToken: tokens[tokens.length - 1] }),
    [state, tokens],
  );
  const [status, setStatus] = useState('');
  const [actionError, setActionError] = useState<unknown>(null);

  const retry = async (id: string) => {
    setActionError(null);
    try {
      await api.retryDelivery(id);
      setStatus(t.sentAgain);
      reload();
    } catch (err) {
      setActionError(err);
    }
  };

  return (
    <div className="card">
      <h2 className="section-title">{t.deliveriesTitle}</h2>
      <div className="filter">
        <label className="field-label" htmlFor="d-state">
          {t.stateLabel}
        </label>
        <select
          id="d-state"
          className="text-input"
          value={state}
          onChange={(e) => {
            setState(e.target.value);
            setTokens([undefined]);
          }}
        >
          <option value="">{t.anyState}</option>
          {Object.entries(t.deliveryStates).map(([k, v]) => (
            <option key={k} value={k}>
              {v}
            </option>
          ))}
        </select>
      </div>
      <ErrorBox error={actionError ?? error} onDismiss={() => setActionError(null)} />
      <p role="status" className="hint">
        {status}
      </p>
      {!data ? (
        !error && <p className="loading">{t.loading}</p>
      ) : data.deliveries.length === 0 ? (
        <p>{t.noDeliveries}</p>
      ) : (
        <table className="data-table" data-testid="deliveries">
          <thead>
            <tr>
              <th scope="col">{t.colEvent}</th>
              <th scope="col">{t.colTime}</th>
              <th scope="col">{t.colState}</th>
              <th scope="col">{t.colAttempts}</th>
              <th scope="col">{t.colLast}</th>
              <th scope="col">{t.colNext}</th>
              <th scope="col">
                <span className="visually-hidden">{t.sendAgain}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {data.deliveries.map((d) => (
              <tr key={d.id} data-testid={`delivery-${d.id}`}>
                <td data-label={t.colEvent}>
                  <code>{d.event}</code>
                  {d.document_ticket && <div className="muted small">{d.document_ticket}</div>}
                </td>
                <td data-label={t.colTime}>{formatDateTime(d.created_at, lang)}</td>
                <td data-label={t.colState}>
                  <Badge kind={d.state}>{t.deliveryStates[d.state] ?? d.state}</Badge>
                </td>
                <td data-label={t.colAttempts}>{d.attempts}</td>
                <td data-label={t.colLast}>
                  {d.last_status ?? ''} {d.last_error ?? ''}
                </td>
                <td data-label={t.colNext}>{d.next_attempt_at ? formatDateTime(d.next_attempt_at, lang) : '—'}</td>
                <td>
                  {d.state !== 'delivered' && (
                    <button
                      type="button"
                      className="button button-secondary button-small"
                      onClick={() => retry(d.id)}
                      aria-label={`${t.sendAgain}: ${d.event} ${d.id}`}
                    >
                      {t.sendAgain}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {data && (tokens.length > 1 || data.nextToken) && (
        <nav className="pager" aria-label={t.pageOf(tokens.length)}>
          <button
            type="button"
            className="button button-secondary"
            disabled={tokens.length <= 1}
            onClick={() => setTokens(tokens.slice(0, -1))}
          >
            {t.previous}
          </button>
          <button
            type="button"
            className="button button-secondary"
            disabled={!data.nextToken}
            onClick={() => setTokens([...tokens, data.nextToken])}
          >
            {t.next}
          </button>
        </nav>
      )}
    </div>
  );
}
