// An error from the API (or the network), in the page's language, with the server's own words
// underneath for whoever has to help.
import type { ApiError } from '../api';
import { useI18n, type Dict } from '../i18n';

export function describeError(err: ApiError, t: Dict): string {
  switch (err.code) {
    case 'NETWORK':
      return t.network;
    case 'SIGNING_LINK_INVALID':
      return t.linkInvalid;
    case 'ENDORSEMENT_WITHDRAWN':
      return t.endorsementWithdrawn;
    case 'DOCUMENT_NOT_SIGNABLE': {
      const status = typeof err.details?.status === 'string' ? err.details.status : '';
      return t.state[status]?.[1] ?? err.message;
    }
    case 'SAT_CERTIFICATE_REFUSED': {
      const reason = typeof err.details?.reason === 'string' ? err.details.reason : '';
      return t.sat.refused[reason] ?? t.sat.refusedOther;
    }
    case 'CERTIFICATE_REFUSED': {
      const reason = typeof err.details?.reason === 'string' ? err.details.reason : '';
      return t.cert.refused[reason] ?? t.sat.refusedOther;
    }
    case 'CERTIFICATE_SIGNATURE_INVALID':
      return t.cert.signatureInvalid;
    case 'SAT_SIGNATURE_INVALID':
      return t.sat.signatureInvalid;
    case 'PREPARATION_EXPIRED':
      return t.sat.preparationExpired;
    case 'PREPARATION_USED':
      return t.sat.preparationUsed;
    case 'PREPARATION_NOT_FOUND':
      return t.sat.preparationNotFound;
    case 'SAT_EFIRMA_REQUIRED':
      return t.sat.efirmaRequired;
    default:
      return err.message;
  }
}

export function ErrorBanner({ error, onDismiss }: { error: ApiError; onDismiss?: () => void }) {
  const { t } = useI18n();
  const text = describeError(error, t);
  return (
    <div className="banner banner-error" role="alert" data-testid="error-banner" data-code={error.code}>
      <div>
        <p className="banner-title">{t.errorTitle}</p>
        <p>{text}</p>
        {text !== error.message && error.code !== 'NETWORK' && (
          <p className="banner-detail">
            {t.serverSays}: {error.message} ({error.code})
          </p>
        )}
      </div>
      {onDismiss && (
        <button type="button" className="button button-secondary" onClick={onDismiss}>
          {t.dismiss}
        </button>
      )}
    </div>
  );
}
