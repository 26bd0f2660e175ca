// The webhook's subscriptions per event (POST/GET/DELETE /api/subscriptions through the panel): a
// URL that receives one event kind only, with its own secret, shown once when it is added.
import { type FormEvent, useState } from 'react';
import { eventLabel } from '../../../src/domain/events/event-labels.js';
import type { SubscriptionList } from '../../../src/schemas/events.js';
import { api } from './api';
import { SelectField, TextField } from './fields';
import { usePanelI18n } from './panel-i18n';
import { DataTable } from './table';
import { Badge, ErrorBox, ShownOnce, useLoad } from './widgets';

type Subscription = SubscriptionList['subscriptions'][number];

export function Subscriptions() {
  const { t, lang, when } = usePanelI18n();
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
    if (!window.confirm(t.confirmDeleteSubscription(eventLabel(ev, lang), to))) {
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
        <SelectField id="sub-event" label={t.subEventLabel} value={chosen} onChange={(e) => setEvent(e.target.value)}>
          {(data?.event_kinds ?? []).map((k) => (
            <option key={k} value={k}>
              {eventLabel(k, lang)} ({k})
            </option>
          ))}
        </SelectField>
        <TextField
          id="sub-url"
          label={t.subUrlLabel}
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
      <DataTable<Subscription>
        rows={data?.subscriptions}
        error={error}
        testId="subscriptions"
        empty={t.noSubscriptions}
        rowKey={(x) => x.id}
        rowTestId={(x) => `subscription-${x.id}`}
        columns={[
          {
            label: t.colEvent,
            cell: (x) => (
              <>
                {eventLabel(x.event, lang)}
                <div className="muted small">
                  <code>{x.event}</code>
                </div>
              </>
            ),
          },
          { label: t.colUrl, className: 'url-cell', cell: (x) => x.url },
          {
            label: t.colState,
            cell: (x) => (
              <>
                <Badge kind={x.status}>{t.subStatus[x.status] ?? x.status}</Badge>
                {x.disabled_reason && <div className="muted small">{x.disabled_reason}</div>}
              </>
            ),
          },
          { label: t.colSubCreated, cell: (x) => when(x.created_at) },
          {
            label: t.deleteSubscription,
            actions: true,
            cell: (x) => (
              <button
                type="button"
                className="button button-secondary button-small"
                onClick={() => remove(x.id, x.event, x.url)}
                aria-label={`${t.deleteSubscription}: ${x.event} ${x.url}`}
              >
                {t.deleteSubscription}
              </button>
            ),
          },
        ]}
      />
    </div>
  );
}
