// Step 1: the document. A PDF from the person's disk (read here, as bytes, never sent before Send),
// or one of the account's templates with its values, whose PDF the service makes to show the pages
// (the panel's template trial, which stores nothing) while the document itself is generated at Send.
import { type ChangeEvent, useState } from 'react';
import { api } from '../api';
import { SelectField, TextField } from '../fields';
import { usePanelI18n } from '../panel-i18n';
import { ErrorBox, useLoad } from '../widgets';
import { toBase64 } from './bytes';
import { ids } from './field-errors';
import type { Prepare } from './use-prepare';

export function SourceStep({ p }: { p: Prepare }) {
  const { t } = usePanelI18n();
  const s = p.state!;
  const kind = s.source.kind;
  const choose = (k: 'pdf' | 'template') => p.update((x) => ({ ...x, source: { ...x.source, kind: k } }));
  return (
    <>
      <fieldset className="prepare-fieldset">
        <legend className="field-label">{t.sourceLegend}</legend>
        {(['pdf', 'template'] as const).map((k) => (
          <label key={k} className="consent" htmlFor={`src-kind-${k}`}>
            <input id={`src-kind-${k}`} type="radio" name="src-kind" checked={kind === k} onChange={() => choose(k)} />
            <span>{k === 'pdf' ? t.sourcePdf : t.sourceTemplate}</span>
          </label>
        ))}
      </fieldset>
      {kind === 'pdf' && <PdfSource p={p} />}
      {kind === 'template' && <TemplateSource p={p} />}
      {kind !== 'none' && (
        <TextField
          box="field"
          id={ids.name}
          label={t.docName}
          hint={t.docNameHint}
          maxLength={200}
          value={s.name}
          error={p.errors[ids.name]}
          onChange={(e) => {
            const name = e.target.value;
            p.update((x) => ({ ...x, name }), ids.name);
          }}
        />
      )}
    </>
  );
}

function PdfSource({ p }: { p: Prepare }) {
  const { t } = usePanelI18n();
  const s = p.state!;
  const read = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    if (!file) {
      return;
    }
    const pdf = toBase64(new Uint8Array(await file.arrayBuffer()));
    // Boxes belong to the pages of the file they were placed on.
    p.update((x) => ({ ...x, boxes: [], source: { ...x.source, kind: 'pdf', pdf, fileName: file.name } }), ids.source);
  };
  return (
    <div className="field">
      <label className="field-label" htmlFor={ids.source}>
        {t.pdfFile}
      </label>
      <input
        id={ids.source}
        type="file"
        accept="application/pdf,.pdf"
        onChange={read}
        aria-describedby={p.errors[ids.source] ? `${ids.source}-error` : undefined}
        aria-invalid={p.errors[ids.source] ? true : undefined}
        data-testid="pdf-file"
      />
      {s.source.fileName && (
        <span className="hint" data-testid="pdf-chosen">
          {t.pdfChosen(s.source.fileName)}
        </span>
      )}
      {p.errors[ids.source] && (
        <span id={`${ids.source}-error`} className="field-error" role="alert">
          {p.errors[ids.source]}
        </span>
      )}
    </div>
  );
}

function TemplateSource({ p }: { p: Prepare }) {
  const { t } = usePanelI18n();
  const s = p.state!;
  const list = useLoad(() => api.templates(), []);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const pick = async (title: string) => {
    setError(null);
    p.update((x) => ({ ...x, boxes: [], source: { ...x.source, template: title, fields: [], preview: '' } }), ids.template);
    if (!title) {
      return;
    }
    try {
      const f = await api.templateFields(title);
      p.update((x) =>
        x.source.template === title
          ? { ...x, source: { ...x.source, fields: f.fields.map((v) => ({ id: v.id, value: String(v.value ?? '') })) } }
          : x,
      );
    } catch (err) {
      setError(err);
    }
  };
  const makePages = async () => {
    setBusy(true);
    setError(null);
    try {
      const r = await api.tryTemplate(s.source.template, { fields: s.source.fields });
      p.update((x) => ({ ...x, source: { ...x.source, preview: r.pdf } }));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <SelectField
        box="field"
        id={ids.template}
        label={t.templateLabel}
        value={s.source.template}
        error={p.errors[ids.template]}
        onChange={(e) => void pick(e.target.value)}
      >
        <option value="">{t.chooseTemplate}</option>
        {(list.data?.templates ?? []).map((x) => (
          <option key={x.template_title} value={x.template_title}>
            {x.template_title}
          </option>
        ))}
      </SelectField>
      <ErrorBox error={error ?? list.error} onDismiss={() => setError(null)} />
      {s.source.fields.length > 0 && (
        <fieldset className="prepare-fieldset">
          <legend className="field-label">{t.templateValues}</legend>
          {s.source.fields.map((f, i) => (
            <TextField
              key={f.id}
              box="field"
              id={ids.templateField(i)}
              label={f.id}
              value={f.value}
              maxLength={2000}
              error={p.errors[ids.templateField(i)]}
              onChange={(e) => {
                const value = e.target.value;
                p.update(
                  (x) => ({ ...x, source: { ...x.source, fields: x.source.fields.map((g, j) => (j === i ? { ...g, value } : g)) } }),
                  ids.templateField(i),
                );
              }}
            />
          ))}
        </fieldset>
      )}
      {s.source.template && (
        <div className="actions">
          <button type="button" className="button button-secondary" onClick={makePages} disabled={busy} data-testid="template-pages">
            {busy ? t.makingPages : s.source.preview ? t.updatePages : t.showPages}
          </button>
        </div>
      )}
    </>
  );
}
