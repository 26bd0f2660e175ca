// A field a signer fills, as set on the placement step: its label, whether it is required, and what
// its type takes (a text's format, a dropdown's choices, a date's format); the service's rules for
// them are docs/api.md's, and its refusal is shown at the setting it names.
import { CheckField, SelectField, TextField, TextAreaField } from '../fields';
import { usePanelI18n } from '../panel-i18n';
import { ids } from './field-errors';
import { DATE_FORMATS, type PrepField } from './state';
import type { Prepare } from './use-prepare';

export function FieldSettings({ p, field: f, who, onRemove }: { p: Prepare; field: PrepField; who: string; onRemove: () => void }) {
  const { t } = usePanelI18n();
  const set =
    <K extends keyof PrepField>(key: K, id: string) =>
    (value: PrepField[K]) =>
      p.update((x) => ({ ...x, fields: x.fields.map((g) => (g.key === f.key ? { ...g, [key]: value } : g)) }), id);
  const id = (part: Parameters<typeof ids.fieldPart>[1]) => ids.fieldPart(f.key, part);
  const kind = t.fieldTypes[f.type];
  return (
    <li className="prepare-field-settings" data-testid="field-settings">
      <p className="field-label">
        {kind} · {t.boxOnPage(f.page + 1)}{' '}
        <button type="button" className="link-button" onClick={onRemove}>
          {t.removeField(kind, who, f.page + 1)}
        </button>
      </p>
      {p.errors[ids.field(f.key)] && (
        <span id={`${ids.field(f.key)}-error`} className="field-error" role="alert">
          {p.errors[ids.field(f.key)]}
        </span>
      )}
      <TextField
        box="field"
        id={id('label')}
        label={t.fieldLabel}
        maxLength={100}
        value={f.label}
        error={p.errors[id('label')]}
        onChange={(e) => set('label', id('label'))(e.target.value)}
      />
      <CheckField
        id={id('required')}
        label={t.fieldRequired}
        checked={f.required}
        error={p.errors[id('required')]}
        onChange={(e) => set('required', id('required'))(e.target.checked)}
      />
      {f.type === 'text' && (
        <SelectField
          box="field"
          id={id('format')}
          label={t.fieldFormat}
          value={f.format}
          error={p.errors[id('format')]}
          onChange={(e) => set('format', id('format'))(e.target.value as PrepField['format'])}
        >
          <option value="">{t.fieldFormats.none}</option>
          <option value="email">{t.fieldFormats.email}</option>
          <option value="number">{t.fieldFormats.number}</option>
          <option value="pattern">{t.fieldFormats.pattern}</option>
        </SelectField>
      )}
      {f.type === 'text' && f.format === 'pattern' && (
        <TextField
          box="field"
          id={id('pattern')}
          label={t.fieldPattern}
          maxLength={200}
          value={f.pattern}
          error={p.errors[id('pattern')]}
          onChange={(e) => set('pattern', id('pattern'))(e.target.value)}
        />
      )}
      {f.type === 'dropdown' && (
        <TextAreaField
          id={id('options')}
          label={t.fieldOptions}
          rows={3}
          value={f.options}
          error={p.errors[id('options')]}
          onChange={(e) => set('options', id('options'))(e.target.value)}
        />
      )}
      {f.type === 'date' && (
        <SelectField
          box="field"
          id={id('date')}
          label={t.fieldDateFormat}
          value={f.dateFormat}
          error={p.errors[id('date')]}
          onChange={(e) => set('dateFormat', id('date'))(e.target.value as PrepField['dateFormat'])}
        >
          <option value="">{t.fieldDateDefault}</option>
          {DATE_FORMATS.map((x) => (
            <option key={x} value={x}>
              {x}
            </option>
          ))}
        </SelectField>
      )}
    </li>
  );
}
