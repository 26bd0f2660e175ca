// The account's brand and the sites that may frame its signer pages (POST /panel/api/brand, the
// same checks as the account API: a refused field is named in the error and nothing is saved).
import { type FormEvent, useEffect, useState } from 'react';
import { api } from './api';
import { TextField } from './fields';
import { usePanelI18n } from './panel-i18n';
import { ErrorBox, PageHeading, useLoad } from './widgets';

interface Form {
  brand_name: string;
  brand_colour: string;
  email_sender_name: string;
  email_reply_to: string;
  hide_sello: boolean;
  frame_origins: string;
}

export function BrandPage() {
  const { t } = usePanelI18n();
  const { data, error } = useLoad(() => api.brand(), []);
  const [form, setForm] = useState<Form | null>(null);
  const [status, setStatus] = useState('');
  const [saveError, setSaveError] = useState<unknown>(null);
  useEffect(() => {
    if (data) {
      setForm({
        brand_name: data.brand_name ?? '',
        brand_colour: data.brand_colour ?? '',
        email_sender_name: data.email_sender_name ?? '',
        email_reply_to: data.email_reply_to ?? '',
        hide_sello: data.hide_sello,
        frame_origins: data.frame_origins.join('\n'),
      });
    }
  }, [data]);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!form) {
      return;
    }
    setStatus('');
    setSaveError(null);
    // An emptied field clears the setting.
    const text = (v: string) => (v.trim() === '' ? null : v.trim());
    try {
      await api.setBrand({
        brand_name: text(form.brand_name),
        brand_colour: text(form.brand_colour),
        email_sender_name: text(form.email_sender_name),
        email_reply_to: text(form.email_reply_to),
        hide_sello: form.hide_sello,
        frame_origins: form.frame_origins
          .split('\n')
          .map((o) => o.trim())
          .filter(Boolean),
      });
      setStatus(t.brandSaved);
    } catch (err) {
      setSaveError(err);
    }
  };

  const field = (key: Exclude<keyof Form, 'hide_sello'>) => ({
    value: form?.[key] ?? '',
    onChange: (e: { target: { value: string } }) => setForm((f) => f && { ...f, [key]: e.target.value }),
  });

  return (
    <section aria-labelledby="brand-title">
      <PageHeading>
        <span id="brand-title">{t.brandTitle}</span>
      </PageHeading>
      <ErrorBox error={error ?? saveError} onDismiss={saveError ? () => setSaveError(null) : undefined} />
      {form && (
        <form className="card form" onSubmit={save} data-testid="brand-form">
          <p>{t.brandIntro}</p>
          <TextField id="brand-name" label={t.brandNameLabel} {...field('brand_name')} />
          <TextField id="brand-colour" label={t.brandColourLabel} hint={t.brandColourHint} {...field('brand_colour')} />
          <TextField id="sender-name" label={t.senderNameLabel} {...field('email_sender_name')} />
          <TextField id="reply-to" label={t.replyToLabel} type="email" {...field('email_reply_to')} />
          <label className="check-row">
            <input
              type="checkbox"
              id="hide-sello"
              checked={form.hide_sello}
              onChange={(e) => setForm((f) => f && { ...f, hide_sello: e.target.checked })}
            />{' '}
            {t.hideSelloLabel}
          </label>
          <label htmlFor="frame-origins" className="field-label">
            {t.frameOriginsLabel}
          </label>
          <textarea id="frame-origins" className="text-input" rows={3} aria-describedby="frame-origins-hint" {...field('frame_origins')} />
          <p id="frame-origins-hint" className="hint">
            {t.frameOriginsHint}
          </p>
          <div className="actions">
            <button type="submit" className="button button-primary">
              {t.saveBrand}
            </button>
          </div>
          <p role="status" data-testid="brand-status">
            {status}
          </p>
        </form>
      )}
    </section>
  );
}
