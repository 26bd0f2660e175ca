// The signer's actions, kept at the bottom of the screen wherever they are in the document: Sign
// (it submits the form, #sign-form, and stays disabled until the signature and the consent are
// there) and Reject, first, as the next stops after the form for the keyboard; then the way to each
// of their boxes ("next box (k of N)") and to the signing form.
import { useI18n } from '../i18n';
import { NextBoxButton } from './PdfViewer';

export interface ActionBarProps {
  /** How many boxes the signer has on the document. */
  boxes: number;
  canSign: boolean;
  busy: boolean;
  signLabel: string;
  onReject: () => void;
}

export function ActionBar({ boxes, canSign, busy, signLabel, onReject }: ActionBarProps) {
  const { t } = useI18n();
  return (
    <nav className="action-bar" aria-label={t.actionsLabel} data-testid="action-bar">
      <div className="bar-actions">
        <button
          type="submit"
          form="sign-form"
          className="button button-primary"
          disabled={!canSign}
          aria-describedby={canSign ? undefined : 'sign-needs'}
          data-testid="bar-sign"
        >
          {signLabel}
        </button>
        <button type="button" className="button button-danger-outline" onClick={onReject} disabled={busy} data-testid="bar-reject">
          {t.reject}
        </button>
      </div>
      <div className="bar-nav">
        {boxes > 0 && <NextBoxButton count={boxes} className="button button-box" />}
        {!canSign && !busy && (
          <a className="bar-link" href="#signing">
            {t.goToSign}
          </a>
        )}
      </div>
    </nav>
  );
}
