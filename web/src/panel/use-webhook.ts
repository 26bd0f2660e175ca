// The account's webhook as the panel edits it (WebhooksPage.tsx): its URL, a new secret (shown
// once), the test event's outcome, and what saving said.
import { type FormEvent, useState } from 'react';
import { api } from './api';
import { usePanelI18n } from './panel-i18n';
import { useLoad } from './widgets';

export function useWebhook() {
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

  return { hook, shownUrl, setUrl, secret, notice, error, dismiss: () => setError(null), testResult, save, test, rotate };
}
