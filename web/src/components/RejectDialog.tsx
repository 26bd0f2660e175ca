// Rejecting the document: a modal dialog with the reason (at most 300 characters as the person
// sees them). Focus stays inside while it is open, Escape closes it, and focus goes back to the
// button that opened it.
import { useEffect, useId, useRef, useState } from 'react';
import { graphemeCount } from '../graphemes';
import { useI18n } from '../i18n';

export const REASON_MAX = 300;

interface Props {
  open: boolean;
  busy: boolean;
  onClose: () => void;
  onReject: (reason: string) => void;
}

/** The dialog is shown as a modal while `open`, and closed when not. */
function useModal(dialog: React.RefObject<HTMLDialogElement | null>, open: boolean) {
  useEffect(() => {
    const el = dialog.current;
    if (!el) {
      return;
    }
    if (open && !el.open) {
      el.showModal();
    } else if (!open && el.open) {
      el.close();
    }
  }, [dialog, open]);
}

/** Tab and Shift+Tab go round the dialog's controls, never out of it. */
function trapFocus(e: React.KeyboardEvent<HTMLDialogElement>) {
  if (e.key !== 'Tab') {
    return;
  }
  const focusable = [
    ...e.currentTarget.querySelectorAll<HTMLElement>('button, textarea, input, [href], [tabindex]:not([tabindex="-1"])'),
  ].filter((el) => !el.hasAttribute('disabled'));
  if (focusable.length === 0) {
    return;
  }
  const first = focusable[0];
  const last = focusable[focusable.length - 1];
  if (e.shiftKey && document.activeElement === first) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault();
    first.focus();
  }
}

export function RejectDialog({ open, busy, onClose, onReject }: Props) {
  const { t } = useI18n();
  const dialog = useRef<HTMLDialogElement>(null);
  const [reason, setReason] = useState('');
  const [touched, setTouched] = useState(false);
  const id = useId();

  useModal(dialog, open);

  const count = graphemeCount(reason.trim());
  const tooLong = count > REASON_MAX;
  const empty = count === 0;

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (!empty && !tooLong && !busy) {
      onReject(reason.trim());
    }
  };

  return (
    <dialog
      ref={dialog}
      className="dialog"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-intro`}
      onKeyDown={trapFocus}
      onCancel={(e) => {
        // Escape: close unless a rejection is on its way.
        e.preventDefault();
        if (!busy) {
          onClose();
        }
      }}
      onClose={() => open && onClose()}
    >
      <form onSubmit={submit} noValidate>
        <h2 id={`${id}-title`} className="dialog-title">
          {t.rejectTitle}
        </h2>
        <p id={`${id}-intro`}>{t.rejectIntro}</p>
        <label htmlFor={`${id}-reason`} className="field-label">
          {t.reasonLabel}
        </label>
        <textarea
          id={`${id}-reason`}
          className="text-input textarea"
          rows={5}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          aria-describedby={`${id}-counter ${id}-problem`}
          aria-invalid={tooLong || (touched && empty)}
          autoFocus
        />
        <p id={`${id}-counter`} className={tooLong ? 'counter counter-over' : 'counter'} data-testid="reason-counter">
          {t.counter(count, REASON_MAX)}
        </p>
        <p id={`${id}-problem`} className="field-error" role="alert">
          {tooLong ? t.tooLong(REASON_MAX) : touched && empty ? t.reasonRequired : ''}
        </p>
        <div className="dialog-actions">
          <button type="button" className="button button-secondary" onClick={onClose} disabled={busy}>
            {t.cancel}
          </button>
          <button type="submit" className="button button-danger" disabled={busy || tooLong} aria-disabled={empty || undefined}>
            {busy ? t.rejecting : t.confirmReject}
          </button>
        </div>
      </form>
    </dialog>
  );
}
