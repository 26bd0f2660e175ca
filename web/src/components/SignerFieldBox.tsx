// A field the signer fills, drawn over its page where its value will be written. Text, a checkbox
// and a list of options are filled right there; a date and the initials show what will be written
// and take the signer to their control in the list (the date's picker and the one initials
// control live there). The box is a stop of "next box": focusing it goes on to its control. Its
// control is made only while the page is drawn (a long document keeps few alive); until then the
// box shows the value as text.
import { type CSSProperties, useEffect, useRef } from 'react';
import { useI18n } from '../i18n';
import type { SignerField } from '../signer-fields';
import type { SignerFieldsState } from '../use-signer-fields';
import { fieldLabel, messageId } from './SignerFieldControl';

export interface SignerFieldBoxProps {
  field: SignerField;
  state: SignerFieldsState;
  place: { style: CSSProperties; near: boolean; order?: number; count: number };
  disabled?: boolean;
}

export const pageControlId = (id: string) => `signer-field-page-${id}`;

export function SignerFieldBox({ field, state, place, disabled }: SignerFieldBoxProps) {
  const { t } = useI18n();
  const box = useRef<HTMLDivElement>(null);
  const control = useRef<HTMLElement | null>(null);
  const label = field.type === 'initials' ? t.fields.initialsLabel : fieldLabel(field, t.fields.untitled);
  const message = state.messageOf(field);
  const value = state.values[field.id];
  const text = field.type === 'date' ? (state.dateText(field) ?? '') : typeof value === 'string' ? value : '';

  // "Next box" focused the box before its page was drawn: the control takes the focus once it is there.
  useEffect(() => {
    if (place.near && document.activeElement === box.current) {
      control.current?.focus();
    }
  }, [place.near]);

  const common = {
    id: pageControlId(field.id),
    disabled,
    'aria-label': label,
    'aria-invalid': message ? true : undefined,
    'aria-describedby': message ? messageId(field.id) : undefined,
    onBlur: () => state.leave(field),
    ref: (el: HTMLElement | null) => {
      control.current = el;
    },
  };
  const goToList = () => document.getElementById(state.controlId(field))?.focus();

  let inner: React.ReactNode = (
    <span className="field-box-value" aria-hidden="true">
      {field.type === 'checkbox' ? (value === true ? '✓' : '') : text}
    </span>
  );
  if (place.near) {
    if (field.type === 'text') {
      inner = <input {...common} type="text" value={text} onChange={(e) => state.set(field, e.target.value)} />;
    } else if (field.type === 'checkbox') {
      inner = <input {...common} type="checkbox" checked={value === true} onChange={(e) => state.set(field, e.target.checked)} />;
    } else if (field.type === 'dropdown') {
      inner = (
        <select {...common} value={text} onChange={(e) => state.set(field, e.target.value)}>
          <option value="">{t.fields.choose}</option>
          {(field.options ?? []).map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      );
    } else {
      // The date and the initials: what will be written, and the way to change it.
      inner = (
        <button {...common} type="button" aria-label={`${label}: ${text || t.fields.initialsBox}`} onClick={goToList}>
          {text || (field.type === 'initials' ? t.fields.initialsBox : '')}
        </button>
      );
    }
  }
  return (
    // biome-ignore lint/a11y/useSemanticElements: a box over the page holding one control, not a form's fieldset
    <div
      ref={box}
      role="group"
      className={`field-box field-box-${field.type}${message ? ' field-box-invalid' : ''}`}
      style={place.style}
      aria-label={place.order !== undefined ? t.fields.boxOf(label, place.order + 1, place.count) : label}
      data-box-index={place.order}
      data-field-box={field.id}
      tabIndex={-1}
      onFocus={(e) => {
        if (e.target === e.currentTarget) {
          control.current?.focus();
        }
      }}
    >
      {inner}
    </div>
  );
}
