// The webhook's subscriptions per event as the panel keeps them (Subscriptions.tsx): the list, the
// new one's event and URL, its secret (shown once), and what adding or deleting said.
import { type FormEvent, useState } from 'react';
import { eventLabel } from '../../../src/domain/events/event-labels.js';
import { api } from './api';
import { usePanelI18n } from './panel-i18n';
import { useLoad } from './widgets';

export function useSubscriptions() {
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

  return {
    data,
    error,
    chosen,
    setEvent,
    url,
    setUrl,
    secret,
    status,
    actionError,
    dismiss: () => setActionError(null),
    add,
    remove,
  };
}

export type SubscriptionsState = ReturnType<typeof useSubscriptions>;
