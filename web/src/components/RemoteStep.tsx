// The CSC signer's step: they sign with a credential their trust service provider holds. The page
// asks the service where to send them (the provider's authorization page); the provider sends them
// back to the service, which makes the signature and returns them to this page, signed. Nothing of
// the credential passes through this page.
import { useState } from 'react';
import { authorizeCsc, type FieldValues, type Lang } from '../api';
import { useI18n } from '../i18n';
import { useSignerFields, withFieldValues } from '../use-signer-fields';

const TEXT = {
  es: {
    heading: 'Firmar con tu proveedor de firma',
    intro:
      'Tu firma la hace la credencial que guarda tu proveedor de servicios de confianza. Te llevaremos a su página para que la autorices; después volverás aquí con el documento firmado.',
    consent: 'Acepto firmar este documento con mi credencial de firma remota.',
    go: 'Continuar con mi proveedor',
    going: 'Abriendo tu proveedor…',
  },
  en: {
    heading: 'Sign with your signing provider',
    intro:
      'Your signature is made by the credential your trust service provider keeps. You will be taken to its page to authorize it, and come back here with the document signed.',
    consent: 'I agree to sign this document with my remote signing credential.',
    go: 'Continue with my provider',
    going: 'Opening your provider…',
  },
};

export interface RemoteStepProps {
  token: string;
  language: Lang;
  busy: boolean;
  run: (action: () => Promise<void>) => Promise<void>;
  /** Where to send the signer for something else than the page's one document (a set: all its documents at once). */
  authorize?: (language: Lang, fieldValues?: FieldValues) => Promise<{ authorize_url: string }>;
}

export function RemoteStep(p: RemoteStepProps) {
  const { lang } = useI18n();
  const t = TEXT[lang];
  const [consent, setConsent] = useState(false);
  const [leaving, setLeaving] = useState(false);
  const fields = useSignerFields();
  const go = () =>
    p.run(async () => {
      // The values go before the provider is asked: the revision it signs already holds them.
      const { authorize_url } = await withFieldValues(fields, (values) =>
        p.authorize ? p.authorize(p.language, values) : authorizeCsc(p.token, p.language, values),
      );
      setLeaving(true);
      window.location.assign(authorize_url);
    });
  return (
    <form
      id="remote-form"
      className="efirma"
      onSubmit={(ev) => {
        ev.preventDefault();
        if (consent && !p.busy && (!fields || fields.check())) {
          void go();
        }
      }}
    >
      <h2>{t.heading}</h2>
      <p>{t.intro}</p>
      <div className="consent">
        <input id="remote-consent" type="checkbox" checked={consent} onChange={(ev) => setConsent(ev.target.checked)} disabled={p.busy} />
        <label htmlFor="remote-consent">{t.consent}</label>
      </div>
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={!consent || p.busy || leaving}>
          {leaving ? t.going : t.go}
        </button>
      </div>
    </form>
  );
}
