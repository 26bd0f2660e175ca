// The webhook's subscriptions per event (POST/GET/DELETE /api/subscriptions through the panel): a
// URL that receives one event kind only, with its own secret, shown once when it is added.
import { eventLabel } from '../../../src/domain/events/event-labels.js';
import type { SubscriptionList } from '../../../src/schemas/events.js';
import { SelectField, TextField } from './fields';
import { usePanelI18n } from './panel-i18n';
import { DataTable } from './table';
import { type SubscriptionsState, useSubscriptions } from './use-subscriptions';
import { Badge, ErrorBox, ShownOnce } from './widgets';

type Subscription = SubscriptionList['subscriptions'][number];

export function Subscriptions() {
  const { t } = usePanelI18n();
  const subs = useSubscriptions();
  return (
    <div className="card">
      <h2 className="section-title">{t.subscriptionsTitle}</h2>
      <p className="hint">{t.subscriptionsIntro}</p>
      <ErrorBox error={subs.actionError ?? subs.error} onDismiss={subs.dismiss} />
      <SubscriptionForm subs={subs} />
      {subs.secret && <ShownOnce label={t.subscriptionSecret} value={subs.secret} testId="subscription-secret" />}
      <p role="status" className="hint">
        {subs.status}
      </p>
      <SubscriptionTable subs={subs} />
    </div>
  );
}

/** A new subscription: the event and the URL that receives it. */
function SubscriptionForm({ subs }: { subs: SubscriptionsState }) {
  const { t, lang } = usePanelI18n();
  return (
    <form className="form" onSubmit={subs.add}>
      <SelectField id="sub-event" label={t.subEventLabel} value={subs.chosen} onChange={(e) => subs.setEvent(e.target.value)}>
        {(subs.data?.event_kinds ?? []).map((k) => (
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
        value={subs.url}
        onChange={(e) => subs.setUrl(e.target.value)}
        placeholder="https://"
      />
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={!subs.data} data-testid="add-subscription">
          {t.addSubscription}
        </button>
      </div>
    </form>
  );
}

function SubscriptionTable({ subs }: { subs: SubscriptionsState }) {
  const { t, lang, when } = usePanelI18n();
  return (
    <DataTable<Subscription>
      rows={subs.data?.subscriptions}
      error={subs.error}
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
              onClick={() => subs.remove(x.id, x.event, x.url)}
              aria-label={`${t.deleteSubscription}: ${x.event} ${x.url}`}
            >
              {t.deleteSubscription}
            </button>
          ),
        },
      ]}
    />
  );
}
