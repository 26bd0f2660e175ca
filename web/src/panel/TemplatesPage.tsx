// The account's templates, read-only: the list, a template's fields, and a trial generation with
// sample values whose PDF is offered as a download made in the page (nothing is stored).
import { type FormEvent, useEffect, useState } from 'react';
import type { TemplateFields, TemplateList } from '../../../src/schemas/templates.js';
import { api } from './api';
import { TextField } from './fields';
import { usePanelI18n } from './panel-i18n';
import { DataTable } from './table';
import { ErrorBox, PageHeading, useLoad, useOpened } from './widgets';

type TemplateSummary = TemplateList['templates'][number];

export function TemplatesPage() {
  const { t, when } = usePanelI18n();
  const { data, error, reload } = useLoad(() => api.templates(), []);
  const { open, error: openError, show, isOpen, dismiss } = useOpened(api.templateFields, (x) => x.template_title);
  return (
    <section aria-labelledby="templates-title">
      <PageHeading>
        <span id="templates-title">{t.templatesTitle}</span>
      </PageHeading>
      <ErrorBox error={openError ?? error} onDismiss={openError ? dismiss : reload} />
      <DataTable<TemplateSummary>
        rows={data?.templates}
        error={error}
        testId="templates"
        empty={t.noTemplates}
        rowKey={(x) => x.template_title}
        columns={[
          {
            label: t.colTemplate,
            cell: (x) => (
              <button type="button" className="link-button" aria-expanded={isOpen(x.template_title)} onClick={() => show(x.template_title)}>
                {x.template_title}
              </button>
            ),
          },
          { label: t.colType, cell: (x) => x.template_type },
          { label: t.colFields, cell: (x) => t.fieldCount(x.fields, x.tables) },
          { label: t.colUpdated, cell: (x) => when(x.updated_at) },
        ]}
      />
      {open && <TryTemplate key={open.template_title} template={open} />}
    </section>
  );
}

/** The template's fields as a form of sample values; the PDF it makes is a download link. */
function TryTemplate({ template }: { template: TemplateFields }) {
  const { t } = usePanelI18n();
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(template.fields.map((f) => [f.id, f.value ?? ''])));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<{ url: string; name: string; warnings: string[] } | null>(null);
  // The object URL holds the PDF in memory until the next trial or until the page leaves.
  useEffect(() => () => (result ? URL.revokeObjectURL(result.url) : undefined), [result]);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const r = await api.tryTemplate(template.template_title, {
        fields: Object.entries(values).map(([id, value]) => ({ id, value })),
      });
      const bytes = Uint8Array.from(atob(r.pdf), (c) => c.charCodeAt(0));
      const url = URL.createObjectURL(new Blob([bytes], { type: 'application/pdf' }));
      setResult({ url, name: `${r.name.replace(/\.pdf$/i, '')}-sample.pdf`, warnings: r.warnings });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const prefix = `try-${template.template_title.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  return (
    <div className="card" data-testid="template-detail">
      <h2 className="section-title">{template.template_title}</h2>
      <p className="hint">{t.tryIntro}</p>
      {template.tables.length > 0 && <p className="muted">{t.tablesNote(template.tables.map((x) => x.id).join(', '))}</p>}
      <form className="form correct-form" onSubmit={submit}>
        {template.fields.length === 0 && <p>{t.noFields}</p>}
        {template.fields.map((f) => (
          <TextField
            key={f.id}
            box="field"
            id={`${prefix}-${f.id}`}
            label={
              <>
                {f.id}
                {f.type && f.type !== 'text' && <span className="muted"> ({f.type})</span>}
              </>
            }
            value={values[f.id] ?? ''}
            maxLength={2000}
            onChange={(e) => setValues((v) => ({ ...v, [f.id]: e.target.value }))}
          />
        ))}
        <div className="actions">
          <button type="submit" className="button button-primary" disabled={busy} data-testid="try-template">
            {busy ? t.trying : t.tryButton}
          </button>
        </div>
      </form>
      <ErrorBox error={error} onDismiss={() => setError(null)} />
      <div role="status">
        {result && (
          <>
            <p>
              {t.tryDone}{' '}
              <a href={result.url} download={result.name} data-testid="try-download">
                {t.downloadTry}
              </a>
            </p>
            {result.warnings.length > 0 && (
              <ul className="muted small" data-testid="try-warnings">
                {result.warnings.map((w) => (
                  <li key={w}>{w}</li>
                ))}
              </ul>
            )}
          </>
        )}
      </div>
    </div>
  );
}
