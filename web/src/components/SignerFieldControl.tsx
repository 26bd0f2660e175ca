// One field the signer fills, as a labelled control: a text box (an email or number keyboard on a
// phone where the format asks for one), a date with the day it will carry written as it will be
// written, a checkbox, a list of options, or the initials. Its problem is said under it, tied to
// it by aria-describedby and marked aria-invalid, so a screen reader says both on focus.
import { useI18n } from '../i18n';
import type { SignerField } from '../signer-fields';
import type { SignerFieldsState } from '../use-signer-fields';

/** The words a field goes by: its label, or its kind. */
export function fieldLabel(field: SignerField, untitled: Record<string, string>): string {
  return field.label?.trim() || untitled[field.type];
}

export const messageId = (id: string) => `signer-field-${id}-message`;

export interface SignerFieldControlProps {
  field: SignerField;
  state: SignerFieldsState;
  /** The control's element id. */
  id: string;
  disabled?: boolean;
  /** Shown under the label (the initials' "they go in each box"). */
  hint?: string;
  /** The label, when not the field's own. */
  label?: string;
}

export function SignerFieldControl({ field, state, id, disabled, hint, label }: SignerFieldControlProps) {
  const { t } = useI18n();
  const words = label ?? fieldLabel(field, t.fields.untitled);
  const message = state.messageOf(field);
  const hintId = `${id}-hint`;
  const describedBy = [message ? messageId(field.id) : null, hint || field.type === 'date' ? hintId : null].filter(Boolean).join(' ');
  const common = {
    id,
    disabled,
    'aria-invalid': message ? true : undefined,
    'aria-describedby': describedBy || undefined,
    'aria-required': field.required || undefined,
    onBlur: () => state.leave(field),
    'data-field-id': field.id,
  } as const;
  const value = state.values[field.id];
  const text = typeof value === 'string' ? value : '';

  const labelEl = (
    <label htmlFor={id} className="field-label">
      {words}
      {field.required && <span className="field-required"> ({t.fields.required})</span>}
    </label>
  );
  let control: React.ReactNode;
  if (field.type === 'checkbox') {
    return (
      <div className={message ? 'signer-field signer-field-invalid' : 'signer-field'}>
        <div className="consent">
          <input {...common} type="checkbox" checked={value === true} onChange={(e) => state.set(field, e.target.checked)} />
          {labelEl}
        </div>
        <Message field={field} message={message} />
      </div>
    );
  }
  if (field.type === 'dropdown') {
    control = (
      <select {...common} className="text-input" value={text} onChange={(e) => state.set(field, e.target.value)}>
        <option value="">{t.fields.choose}</option>
        {(field.options ?? []).map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    );
  } else if (field.type === 'date') {
    const shown = state.dateText(field);
    control = (
      <>
        <input {...common} className="text-input" type="date" value={text} onChange={(e) => state.set(field, e.target.value)} />
        <p className="hint" id={hintId} data-testid="field-date-shown">
          {shown ? t.fields.dateShown(shown, field.time_zone ?? 'UTC') : ''}
        </p>
      </>
    );
  } else {
    const kind = field.format === 'email' ? 'email' : field.format === 'number' ? 'decimal' : undefined;
    control = (
      <input
        {...common}
        className="text-input"
        type="text"
        inputMode={kind}
        autoComplete={kind === 'email' ? 'email' : 'off'}
        maxLength={field.type === 'initials' ? 12 : 500}
        value={text}
        onChange={(e) => state.set(field, e.target.value)}
      />
    );
  }
  return (
    <div className={message ? 'signer-field signer-field-invalid' : 'signer-field'}>
      {labelEl}
      {hint && (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      )}
      {control}
      <Message field={field} message={message} />
    </div>
  );
}

/** The field's problem, where the signer looks: under the control. */
function Message({ field, message }: { field: SignerField; message: string | null }) {
  return (
    <p className="field-error" id={messageId(field.id)} hidden={!message} data-testid="field-error">
      {message}
    </p>
  );
}
