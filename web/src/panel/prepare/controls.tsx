// The prepare page's controls beyond the panel's text and select rows (fields.tsx): a checkbox with
// its label, and a multi-line text, each with its error said under it and tied to it.
import type { InputHTMLAttributes, TextareaHTMLAttributes } from 'react';

interface Extra {
  id: string;
  label: string;
  hint?: string;
  error?: string;
}

const describedBy = (id: string, hint?: string, error?: string) =>
  [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;

function Notes({ id, hint, error }: { id: string; hint?: string; error?: string }) {
  return (
    <>
      {hint && (
        <span id={`${id}-hint`} className="hint">
          {hint}
        </span>
      )}
      {error && (
        <span id={`${id}-error`} className="field-error" role="alert">
          {error}
        </span>
      )}
    </>
  );
}

export function CheckField({ id, label, hint, error, ...input }: Extra & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <div className="field check-field">
      <label className="consent" htmlFor={id}>
        <input id={id} type="checkbox" aria-describedby={describedBy(id, hint, error)} aria-invalid={error ? true : undefined} {...input} />
        <span>{label}</span>
      </label>
      <Notes id={id} hint={hint} error={error} />
    </div>
  );
}

export function TextAreaField({ id, label, hint, error, ...area }: Extra & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <textarea
        id={id}
        className="text-input textarea"
        aria-describedby={describedBy(id, hint, error)}
        aria-invalid={error ? true : undefined}
        {...area}
      />
      <Notes id={id} hint={hint} error={error} />
    </div>
  );
}
