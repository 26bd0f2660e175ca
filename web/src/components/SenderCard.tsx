// Who asks for the signature and as whom one signs: the account's name (set by the operator with
// `sello account update`), the sender's message when the workflow has one, and the signer as the
// link names them. The account's logo is the page header's (PageShell.tsx), shown once: drawn here
// too, the same image stood twice on the first screen.
import { useI18n } from '../i18n';

export interface SenderCardProps {
  sender: { name: string };
  message: string | null;
  /** The signer's name, then their email address when the link has one. */
  signer: { name: string | null; email: string | null };
}

export function SenderCard({ sender, message, signer }: SenderCardProps) {
  const { t } = useI18n();
  const who = [signer.name, signer.email].filter(Boolean).join(' · ') || t.unnamed;
  return (
    <section className="sender" aria-label={sender.name ? t.senderAsks(sender.name) : t.signingAs} data-testid="sender-card">
      {sender.name && (
        <p className="sender-asks" data-testid="sender-name">
          {t.senderAsks(sender.name)}
        </p>
      )}
      {message && (
        <figure className="sender-message">
          <figcaption>{t.senderMessage}</figcaption>
          <blockquote data-testid="sender-message">{message}</blockquote>
        </figure>
      )}
      <p className="signing-as" data-testid="signing-as">
        {t.signingAs} <strong>{who}</strong>
      </p>
    </section>
  );
}
