// The signing section of a signer who signs with their own key (the SAT e.firma, a CERT
// certificate), on the document page and the set page: the key's step, and rejecting, which needs
// no key (the personal link proves a refusal).
import type { ReactNode } from 'react';
import { CertificateStep } from './CertificateStep';
import { EfirmaStep, type EfirmaStepProps } from './EfirmaStep';
import { RejectDialog } from './RejectDialog';
import { RemoteStep, type RemoteStepProps } from './RemoteStep';
import type { CertificateStepProps } from '../use-certificate-signing';

interface RejectProps {
  heading: string;
  rejectLabel: string;
  rejectOpen: boolean;
  onRejectOpen: (open: boolean) => void;
  rejecting: boolean;
  onReject: (reason: string) => void;
}

export type EfirmaSectionProps = EfirmaStepProps & RejectProps;

function OwnKeySection(p: RejectProps & { busy: boolean; children: ReactNode }) {
  return (
    <>
      <section id="signing" className="signing" aria-label={p.heading} tabIndex={-1}>
        {p.children}
        <div className="actions">
          <button type="button" className="button button-danger-outline" onClick={() => p.onRejectOpen(true)} disabled={p.busy}>
            {p.rejectLabel}
          </button>
        </div>
      </section>
      <RejectDialog open={p.rejectOpen} busy={p.rejecting} onClose={() => p.onRejectOpen(false)} onReject={p.onReject} />
    </>
  );
}

export function EfirmaSection({ heading, rejectLabel, rejectOpen, onRejectOpen, rejecting, onReject, ...step }: EfirmaSectionProps) {
  const reject = { heading, rejectLabel, rejectOpen, onRejectOpen, rejecting, onReject };
  return (
    <OwnKeySection {...reject} busy={step.busy}>
      <EfirmaStep {...step} />
    </OwnKeySection>
  );
}

export function CertificateSection({
  heading,
  rejectLabel,
  rejectOpen,
  onRejectOpen,
  rejecting,
  onReject,
  ...step
}: CertificateStepProps & RejectProps) {
  const reject = { heading, rejectLabel, rejectOpen, onRejectOpen, rejecting, onReject };
  return (
    <OwnKeySection {...reject} busy={step.busy}>
      <CertificateStep {...step} />
    </OwnKeySection>
  );
}

export function RemoteSection({
  heading,
  rejectLabel,
  rejectOpen,
  onRejectOpen,
  rejecting,
  onReject,
  ...step
}: RemoteStepProps & RejectProps) {
  const reject = { heading, rejectLabel, rejectOpen, onRejectOpen, rejecting, onReject };
  return (
    <OwnKeySection {...reject} busy={step.busy}>
      <RemoteStep {...step} />
    </OwnKeySection>
  );
}
