// The panel's form rows: a label tied to its control, then the control, its hint and its error,
// both named by the control's aria-describedby so a screen reader reads them with it. In a row of
// filters each row is its own box (`box`); in a stacked form the rows stand in the form itself.
import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from 'react';

interface RowProps {
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  /** Said under the control, which is then marked invalid. */
  error?: string;
  /** The class of a box around the row (`filter`, `field`); none: no box. */
  box?: string;
}

function describedBy(id: string, hint: ReactNode, error: string | undefined): string | undefined {
  return [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
}

/** A control's hint and error, under it, with the ids its aria-describedby names. */
function Notes({ id, hint, error }: { id: string; hint?: ReactNode; error?: string }) {
  return (
    <>
      {hint && (
        <span id={`${id}-hint`} className="hint">
          {hint}
        </span>
      )}
      {error && (
        // An alert: the error appears after a submit, with the focus on the button, not the field.
        <span id={`${id}-error`} className="field-error" role="alert">
          {error}
        </span>
      )}
    </>
  );
}

function Row({ id, label, hint, error, box, children }: RowProps & { children: ReactNode }) {
  const row = (
    <>
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      {children}
      <Notes id={id} hint={hint} error={error} />
    </>
  );
  return box ? <div className={box}>{row}</div> : row;
}

export function TextField({ id, label, hint, error, box, ...input }: RowProps & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <Row id={id} label={label} hint={hint} error={error} box={box}>
      <input
        id={id}
        className="text-input"
        aria-describedby={describedBy(id, hint, error)}
        aria-invalid={error ? true : undefined}
        {...input}
      />
    </Row>
  );
}

export function SelectField({ id, label, hint, error, box, children, ...select }: RowProps & SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <Row id={id} label={label} hint={hint} error={error} box={box}>
      <select
        id={id}
        className="text-input"
        aria-describedby={describedBy(id, hint, error)}
        aria-invalid={error ? true : undefined}
        {...select}
      >
        {children}
      </select>
    </Row>
  );
}

export function TextAreaField({ id, label, hint, error, box = 'field', ...area }: RowProps & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return (
    <Row id={id} label={label} hint={hint} error={error} box={box}>
      <textarea
        id={id}
        className="text-input textarea"
        aria-describedby={describedBy(id, hint, error)}
        aria-invalid={error ? true : undefined}
        {...area}
      />
    </Row>
  );
}

/** A checkbox inside its label, then its hint and error. */
export function CheckField({ id, label, hint, error, ...input }: Omit<RowProps, 'box'> & InputHTMLAttributes<HTMLInputElement>) {
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
