// The SAT signer's step: the .cer and .key files and the key's password, read in this page only
// (efirma.ts). The certificate goes to the service, which prepares the signature; the page signs
// what comes back with the key and sends only the signature value. The key and the password are
// never sent: they live in this component's state and in a non-extractable CryptoKey.
import { useEffect, useRef } from 'react';
import type { Lang, SatPrepared, SignResult } from '../api';
import type { EfirmaProblem } from '../efirma';
import { useI18n } from '../i18n';
import { type Certificate, type EfirmaSigning, useEfirmaSigning } from '../use-efirma-signing';

const TEXT = {
  es: {
    heading: 'Firmar con tu e.firma del SAT',
    intro: (rfc: string) =>
      `Elige el certificado (.cer) y la llave privada (.key) de tu e.firma para el RFC ${rfc} y escribe su contraseña. La llave y la contraseña no salen de este navegador.`,
    cer: 'Certificado (.cer)',
    key: 'Llave privada (.key)',
    password: 'Contraseña de la llave privada',
    consent: 'Acepto firmar este documento con mi e.firma.',
    sign: 'Firmar con e.firma',
    signing: 'Firmando…',
    review: 'Revisa tu certificado antes de firmar',
    reviewIntro: 'Este es el certificado con el que se firmará. Comprueba que es el tuyo y confirma.',
    holder: 'Titular',
    rfc: 'RFC',
    number: 'Número de certificado',
    validity: 'Vigencia',
    validRange: (from: string, to: string) => `Del ${from} al ${to}`,
    status: 'Estado ante el SAT',
    statusGood: 'Vigente: el SAT confirma que no está revocado.',
    statusUnknown:
      'Desconocido: no se pudo consultar al SAT si está revocado. Puedes firmar; el informe de la firma dirá que su estado es desconocido.',
    confirm: 'Confirmar y firmar',
    cancel: 'Cancelar',
    problems: {
      bad_cer: 'El archivo .cer no es un certificado legible.',
      bad_key: 'El archivo .key no es una llave privada del SAT.',
      key_is_certificate:
        'El archivo elegido como llave privada (.key) es un certificado, no una llave privada. Elige el archivo .key de tu e.firma.',
      cer_is_key: 'El archivo elegido como certificado (.cer) es una llave privada. Elige el archivo .cer de tu e.firma.',
      wrong_password: 'La contraseña no abre la llave privada. Revísala e inténtalo de nuevo.',
      key_mismatch: 'La llave privada no corresponde a este certificado.',
      not_rsa: 'El certificado no es de una e.firma del SAT.',
      csd: 'Este es un certificado de sello digital (CSD), que solo sirve para facturar. Usa tu e.firma (FIEL).',
      no_rfc: 'El certificado no indica un RFC: no es de una e.firma del SAT.',
      rfc_mismatch: 'El certificado es de otro RFC distinto al que se pidió para esta firma.',
      expired: 'El certificado está vencido. Renueva tu e.firma con el SAT.',
      not_yet_valid: 'El certificado aún no es válido.',
    } satisfies Record<EfirmaProblem, string>,
  },
  en: {
    heading: 'Sign with your SAT e.firma',
    intro: (rfc: string) =>
      `Choose the certificate (.cer) and private key (.key) of your e.firma for RFC ${rfc} and type its password. The key and the password never leave this browser.`,
    cer: 'Certificate (.cer)',
    key: 'Private key (.key)',
    password: 'Private key password',
    consent: 'I agree to sign this document with my e.firma.',
    sign: 'Sign with e.firma',
    signing: 'Signing…',
    review: 'Check your certificate before signing',
    reviewIntro: 'This is the certificate the signature will be made with. Check that it is yours and confirm.',
    holder: 'Holder',
    rfc: 'RFC',
    number: 'Certificate number',
    validity: 'Validity',
    validRange: (from: string, to: string) => `From ${from} to ${to}`,
    status: 'Status with the SAT',
    statusGood: 'In force: the SAT confirms it is not revoked.',
    statusUnknown:
      'Unknown: the SAT could not be asked whether it is revoked. You can sign; the signature report will say its status is unknown.',
    confirm: 'Confirm and sign',
    cancel: 'Cancel',
    problems: {
      bad_cer: 'The .cer file is not a readable certificate.',
      bad_key: 'The .key file is not an SAT private key.',
      key_is_certificate:
        'The file chosen as the private key (.key) is a certificate, not a private key. Choose the .key file of your e.firma.',
      cer_is_key: 'The file chosen as the certificate (.cer) is a private key. Choose the .cer file of your e.firma.',
      wrong_password: 'The password does not open the private key. Check it and try again.',
      key_mismatch: 'The private key does not belong to this certificate.',
      not_rsa: 'The certificate is not an SAT e.firma.',
      csd: 'This is a seal certificate (CSD), which only seals invoices. Use your e.firma (FIEL).',
      no_rfc: 'The certificate names no RFC: it is not an SAT e.firma.',
      rfc_mismatch: 'The certificate is for another RFC than the one this signature asks for.',
      expired: 'The certificate has expired. Renew your e.firma with the SAT.',
      not_yet_valid: 'The certificate is not valid yet.',
    } satisfies Record<EfirmaProblem, string>,
  },
};

export interface EfirmaStepProps {
  token: string;
  rfc: string;
  language: Lang;
  busy: boolean;
  /** Runs the signature as the page's other actions run (busy state, errors shown). */
  run: (action: () => Promise<void>) => Promise<void>;
  onSigned: (result: SignResult) => void;
  /**
   * Signs something else than the page's one document (a set: each of its documents in turn), with
   * the certificate and a signer of prepared attributes; the key never leaves this page.
   */
  signWith?: (efirma: OpenedEfirma) => Promise<void>;
}

/** What a signing flow needs of the opened e.firma: the certificate to send, and the key's signature. */
export interface OpenedEfirma {
  certificate: string;
  /** Signs the Base64 signed attributes a prepare answered; the signature value, Base64. */
  sign: (signedAttributes: string) => Promise<string>;
  /**
   * Shows the certificate as the service checked it (holder, RFC, validity, the SAT's revocation
   * status) and waits for the signer: true to sign, false to stop (the preparation then expires).
   */
  confirm: (certificate: SatPrepared['certificate']) => Promise<boolean>;
}

const dateOnly = (iso: string, lang: Lang) =>
  new Intl.DateTimeFormat(lang === 'en' ? 'en-GB' : 'es-ES', { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(iso));

export function EfirmaStep(p: EfirmaStepProps) {
  const { lang } = useI18n();
  const t = TEXT[lang];
  const efirma = useEfirmaSigning(p, t.problems);
  if (efirma.review) {
    return <CertificateReview certificate={efirma.review.certificate} answer={efirma.review.answer} />;
  }
  return <EfirmaForm p={p} efirma={efirma} />;
}

/** The certificate as the service checked it, focused as it appears; the signer confirms or stops. */
function CertificateReview({ certificate: c, answer }: { certificate: Certificate; answer: (sign: boolean) => void }) {
  const { lang } = useI18n();
  const t = TEXT[lang];
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
  }, []);
  return (
    <section className="efirma efirma-review" data-testid="efirma-certificate" data-status={c.status} aria-labelledby="efirma-review-title">
      <h2 id="efirma-review-title" ref={heading} tabIndex={-1}>
        {t.review}
      </h2>
      <p>{t.reviewIntro}</p>
      <dl>
        <dt>{t.holder}</dt>
        <dd data-field="name">{c.name}</dd>
        <dt>{t.rfc}</dt>
        <dd data-field="rfc">{c.rfc}</dd>
        <dt>{t.number}</dt>
        <dd data-field="number">{c.certificate_number}</dd>
        <dt>{t.validity}</dt>
        <dd data-field="validity">{t.validRange(dateOnly(c.valid_from, lang), dateOnly(c.valid_to, lang))}</dd>
        <dt>{t.status}</dt>
        <dd data-field="status">{c.status === 'good' ? t.statusGood : t.statusUnknown}</dd>
      </dl>
      <div className="actions">
        <button type="button" className="button button-primary" onClick={() => answer(true)}>
          {t.confirm}
        </button>
        <button type="button" className="button button-secondary" onClick={() => answer(false)}>
          {t.cancel}
        </button>
      </div>
    </section>
  );
}

/** The .cer, the .key, the password and the consent. */
function EfirmaForm({ p, efirma: e }: { p: EfirmaStepProps; efirma: EfirmaSigning }) {
  const { lang } = useI18n();
  const t = TEXT[lang];
  return (
    <form
      id="efirma-form"
      className="efirma"
      onSubmit={(ev) => {
        ev.preventDefault();
        if (e.ready) {
          void e.submit();
        }
      }}
    >
      <h2>{t.heading}</h2>
      <p>{t.intro(p.rfc)}</p>
      <label htmlFor="efirma-cer">{t.cer}</label>
      <input id="efirma-cer" type="file" accept=".cer" onChange={(ev) => e.setCer(ev.target.files?.[0] ?? null)} disabled={p.busy} />
      <label htmlFor="efirma-key">{t.key}</label>
      <input id="efirma-key" type="file" accept=".key" onChange={(ev) => e.setKey(ev.target.files?.[0] ?? null)} disabled={p.busy} />
      <label htmlFor="efirma-password">{t.password}</label>
      <input
        id="efirma-password"
        type="password"
        autoComplete="off"
        value={e.password}
        onChange={(ev) => e.setPassword(ev.target.value)}
        disabled={p.busy}
      />
      <div className="consent">
        <input
          id="efirma-consent"
          type="checkbox"
          checked={e.consent}
          onChange={(ev) => e.setConsent(ev.target.checked)}
          disabled={p.busy}
        />
        <label htmlFor="efirma-consent">{t.consent}</label>
      </div>
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={!e.ready}>
          {p.busy ? t.signing : t.sign}
        </button>
      </div>
    </form>
  );
}
