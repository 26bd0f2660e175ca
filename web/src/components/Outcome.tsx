// The pages shown instead of the pad: signed (with the signed PDF to download), rejected, and a
// document that can no longer be signed.
import { useEffect, useRef } from 'react';
import { pdfUrl } from '../api';
import { formatDate, useI18n } from '../i18n';

/** A heading that takes focus when it appears, so keyboard and screen-reader users land on it. */
function FocusHeading({ children, id }: { children: React.ReactNode; id: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <h2 ref={ref} id={id} tabIndex={-1} className="outcome-title">
      {children}
    </h2>
  );
}

export function SignedView({
  token,
  name,
  signedAt,
  documentStatus,
  endorsement = false,
}: {
  token: string;
  name: string;
  signedAt: string | null;
  documentStatus: string;
  /** The signature was an endorsement of the completed document. */
  endorsement?: boolean;
}) {
  const { t, lang } = useI18n();
  const completed = documentStatus === 'completed';
  return (
    <section
      className="outcome outcome-signed"
      aria-labelledby="outcome-title"
      data-testid="signed-state"
      data-document-status={documentStatus}
    >
      <FocusHeading id="outcome-title">{t.signedTitle}</FocusHeading>
      {signedAt && <p>{t.signedAt(formatDate(signedAt, lang))}</p>}
      <p data-testid="document-status">{endorsement ? t.endorsementSigned : completed ? t.completedAll : t.waitingOthers}</p>
      <a
        className="button button-primary"
        href={pdfUrl(token)}
        download={name.toLowerCase().endsWith('.pdf') ? name : `${name}.pdf`}
        data-testid="download-link"
      >
        {t.download}
      </a>
    </section>
  );
}

export function RejectedView() {
  const { t } = useI18n();
  return (
    <section className="outcome outcome-rejected" aria-labelledby="outcome-title" data-testid="rejected-state">
      <FocusHeading id="outcome-title">{t.rejectedByYou}</FocusHeading>
      <p>{t.rejectedByYouText}</p>
    </section>
  );
}

export function StateView({ title, text, state }: { title: string; text: string; state: string }) {
  return (
    <section className="outcome outcome-closed" aria-labelledby="outcome-title" data-testid="closed-state" data-state={state}>
      <FocusHeading id="outcome-title">{title}</FocusHeading>
      <p>{text}</p>
    </section>
  );
}
