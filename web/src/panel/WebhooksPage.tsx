// The account's webhook: its URL, a new signing secret (shown once), the subscriptions per event,
// and the delivery log with "send again": each event in words with its document's name (the
// identifier and the ticket stay in the tooltip, for whoever matches them with a receiver's log).
import { useState } from 'react';
import { eventLabel } from '../../../src/domain/events/event-labels.js';
import { api, type DeliveryList } from './api';
import { SelectField, TextField } from './fields';
import { usePanelI18n } from './panel-i18n';
import { Subscriptions } from './Subscriptions';
import { DataTable, Pager, usePages } from './table';
import { useWebhook } from './use-webhook';
import { Badge, ErrorBox, PageHeading, ShownOnce, useLoad } from './widgets';

type Delivery = DeliveryList['deliveries'][number];

export function WebhooksPage() {
  const { t } = usePanelI18n();
  const w = useWebhook();
  const { hook } = w;
  return (
    <section aria-labelledby="webhooks-title">
      <PageHeading>
        <span id="webhooks-title">{t.webhooksTitle}</span>
      </PageHeading>
      <ErrorBox error={w.error ?? hook.error} onDismiss={w.dismiss} />
      <form className="card form" onSubmit={w.save}>
        <TextField
          id="webhook-url"
          label={t.urlLabel}
          type="url"
          required
          value={w.shownUrl}
          onChange={(e) => w.setUrl(e.target.value)}
          placeholder="https://"
        />
        {hook.data && !hook.data.url && <p className="hint">{t.noUrl}</p>}
        <div className="actions">
          <button type="submit" className="button button-primary">
            {t.saveUrl}
          </button>
        </div>
        {w.notice && <p role="status">{w.notice}</p>}
      </form>
      <div className="card">
        <h2 className="section-title">{t.secretTitle}</h2>
        {w.secret ? (
          <ShownOnce label={t.newSecret} value={w.secret} testId="webhook-secret" />
        ) : (
          hook.data?.secret_set && <p>{t.secretSet}</p>
        )}
        <div className="actions">
          <button
            type="button"
            className="button button-secondary"
            onClick={w.rotate}
            disabled={!hook.data?.url}
            data-testid="rotate-secret"
          >
            {t.rotateSecret}
          </button>
          <button type="button" className="button button-secondary" onClick={w.test} disabled={!hook.data?.url} data-testid="test-event">
            {t.testEvent}
          </button>
        </div>
        <p role="status" data-testid="test-result">
          {w.testResult}
        </p>
      </div>
      <Subscriptions />
      <Deliveries />
    </section>
  );
}

function Deliveries() {
  const { t } = usePanelI18n();
  const [state, setState] = useState('');
  const pages = usePages();
  const { data, error, reload } = useLoad<DeliveryList>(() => api.deliveries({ state, nextToken: pages.token }), [state, pages.token]);
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
      <SelectField
        box="filter"
        id="d-state"
        label={t.stateLabel}
        value={state}
        onChange={(e) => {
          setState(e.target.value);
          pages.reset();
        }}
      >
        <option value="">{t.anyState}</option>
        {Object.entries(t.deliveryStates).map(([k, v]) => (
          <option key={k} value={k}>
            {v}
          </option>
        ))}
      </SelectField>
      <ErrorBox error={actionError ?? error} onDismiss={() => setActionError(null)} />
      <p role="status" className="hint">
        {status}
      </p>
      <DeliveryTable data={data} error={error} retry={retry} />
      {data && <Pager pages={pages} nextToken={data.nextToken} />}
    </div>
  );
}

/** The deliveries, each event in words with its document's name, and "send again" for the undelivered. */
function DeliveryTable({ data, error, retry }: { data: DeliveryList | null; error: unknown; retry: (id: string) => void }) {
  const { t, lang, when } = usePanelI18n();
  return (
    <DataTable<Delivery>
      rows={data?.deliveries}
      error={error}
      testId="deliveries"
      empty={t.noDeliveries}
      rowKey={(d) => d.id}
      rowTestId={(d) => `delivery-${d.id}`}
      columns={[
        {
          label: t.colEvent,
          cell: (d) => (
            <>
              <span title={d.event}>{eventLabel(d.event, lang)}</span>
              {d.document_ticket && (
                <div className="muted small" title={d.document_ticket}>
                  {d.document_name ?? d.document_ticket}
                </div>
              )}
            </>
          ),
        },
        { label: t.colTime, cell: (d) => when(d.created_at) },
        { label: t.colState, cell: (d) => <Badge kind={d.state}>{t.deliveryStates[d.state] ?? d.state}</Badge> },
        { label: t.colAttempts, cell: (d) => d.attempts },
        {
          label: t.colLast,
          className: 'url-cell',
          cell: (d) => (
            <>
              {d.last_status ?? ''} {d.last_error ?? ''}
            </>
          ),
        },
        { label: t.colNext, cell: (d) => (d.next_attempt_at ? when(d.next_attempt_at) : '—') },
        {
          label: t.sendAgain,
          actions: true,
          cell: (d) =>
            d.state !== 'delivered' && (
              <button
                type="button"
                className="button button-secondary button-small"
                onClick={() => retry(d.id)}
                aria-label={`${t.sendAgain}: ${eventLabel(d.event, lang)} ${d.id}`}
              >
                {t.sendAgain}
              </button>
            ),
        },
      ]}
    />
  );
}
