// The signing section of a SAT signer (the document page and the set page): the e.firma step, and
// rejecting, which needs no e.firma (the personal link proves a refusal).
import { EfirmaStep, type EfirmaStepProps } from './EfirmaStep';
import { RejectDialog } from './RejectDialog';

export interface EfirmaSectionProps extends EfirmaStepProps {
  heading: string;
  rejectLabel: string;
  rejectOpen: boolean;
  onRejectOpen: (open: boolean) => void;
  rejecting: boolean;
  onReject: (reason: string) => void;
}

export function EfirmaSection({ heading, rejectLabel, rejectOpen, onRejectOpen, rejecting, onReject, ...step }: EfirmaSectionProps) {
  return (
    <>
      <section id="signing" className="signing" aria-label={heading} tabIndex={-1}>
        <EfirmaStep {...step} />
        <div className="actions">
          <button type="button" className="button button-danger-outline" onClick={() => onRejectOpen(true)} disabled={step.busy}>
            {rejectLabel}
          </button>
        </div>
      </section>
      <RejectDialog open={rejectOpen} busy={rejecting} onClose={() => onRejectOpen(false)} onReject={onReject} />
    </>
  );
}
