// The CERT signer's step: their certificate file (PKCS#12 .p12/.pfx, or PEM) with, for a PEM
// certificate, the key in a second file when it is not in the first, and the password, read in this
// page only (own-certificate.ts). The service checks the certificate and prepares the signature; the
// page signs what comes back and sends only the signature value.
import { useEffect, useRef } from 'react';
import type { Lang } from '../api';
import { useI18n } from '../i18n';
import type { CertificateProblem } from '../own-certificate';
import {
  type CertificateSigning,
  type CertificateStepProps,
  type CheckedCertificate,
  useCertificateSigning,
} from '../use-certificate-signing';

const TEXT = {
  es: {
    heading: 'Firmar con tu certificado',
    intro:
      'Elige el archivo de tu certificado (.p12, .pfx o .pem) y escribe su contraseña. El archivo y la contraseña no salen de este navegador.',
    file: 'Certificado (.p12, .pfx o .pem)',
    key: 'Llave privada (.pem o .key), si está en otro archivo',
    password: 'Contraseña',
    consent: 'Acepto firmar este documento con mi certificado.',
    sign: 'Firmar con mi certificado',
    signing: 'Firmando…',
    review: 'Revisa tu certificado antes de firmar',
    reviewIntro: 'Este es el certificado con el que se firmará. Comprueba que es el tuyo y confirma.',
    holder: 'Titular',
    emails: 'Correo',
    issuer: 'Emisor',
    serial: 'Número de serie',
    validity: 'Vigencia',
    validRange: (from: string, to: string) => `Del ${from} al ${to}`,
    status: 'Estado',
    statusGood: 'Vigente: la autoridad de certificación confirma que no está revocado.',
    statusUnknown:
      'Desconocido: no se pudo consultar si está revocado. Puedes firmar; el informe de la firma dirá que su estado es desconocido.',
    confirm: 'Confirmar y firmar',
    cancel: 'Cancelar',
    problems: {
      bad_file: 'El archivo no es un certificado PKCS#12 (.p12, .pfx) ni PEM legible.',
      wrong_password: 'La contraseña no abre el archivo. Revísala e inténtalo de nuevo.',
      no_key: 'El archivo no contiene la llave privada. Si la tienes en otro archivo, elígelo también.',
      no_certificate: 'El archivo no contiene el certificado de la llave privada.',
      unsupported_key: 'La llave de este certificado no es RSA ni ECDSA (P-256, P-384, P-521): este servicio no firma con ella.',
      expired: 'El certificado está vencido.',
      not_yet_valid: 'El certificado aún no es válido.',
    } satisfies Record<CertificateProblem, string>,
  },
  en: {
    heading: 'Sign with your certificate',
    intro: 'Choose your certificate file (.p12, .pfx or .pem) and type its password. The file and the password never leave this browser.',
    file: 'Certificate (.p12, .pfx or .pem)',
    key: 'Private key (.pem or .key), if in another file',
    password: 'Password',
    consent: 'I agree to sign this document with my certificate.',
    sign: 'Sign with my certificate',
    signing: 'Signing…',
    review: 'Check your certificate before signing',
    reviewIntro: 'This is the certificate the signature will be made with. Check that it is yours and confirm.',
    holder: 'Holder',
    emails: 'Email',
    issuer: 'Issuer',
    serial: 'Serial number',
    validity: 'Validity',
    validRange: (from: string, to: string) => `From ${from} to ${to}`,
    status: 'Status',
    statusGood: 'In force: the certification authority confirms it is not revoked.',
    statusUnknown: 'Unknown: whether it is revoked could not be asked. You can sign; the signature report will say its status is unknown.',
    confirm: 'Confirm and sign',
    cancel: 'Cancel',
    problems: {
      bad_file: 'The file is not a readable PKCS#12 (.p12, .pfx) or PEM certificate.',
      wrong_password: 'The password does not open the file. Check it and try again.',
      no_key: 'The file holds no private key. If you have it in another file, choose it too.',
      no_certificate: 'The file holds no certificate for the private key.',
      unsupported_key: "This certificate's key is neither RSA nor ECDSA (P-256, P-384, P-521): this service cannot sign with it.",
      expired: 'The certificate has expired.',
      not_yet_valid: 'The certificate is not valid yet.',
    } satisfies Record<CertificateProblem, string>,
  },
};

const dateOnly = (iso: string, lang: Lang) =>
  new Intl.DateTimeFormat(lang === 'en' ? 'en-GB' : 'es-ES', { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(iso));

export function CertificateStep(p: CertificateStepProps) {
  const { lang } = useI18n();
  const signing = useCertificateSigning(p, TEXT[lang].problems);
  if (signing.review) {
    return <CertificateReview certificate={signing.review.certificate} answer={signing.review.answer} />;
  }
  return <CertificateForm p={p} signing={signing} />;
}

/** The certificate as the service checked it, focused as it appears; the signer confirms or stops. */
function CertificateReview({ certificate: c, answer }: { certificate: CheckedCertificate; answer: (sign: boolean) => void }) {
  const { lang } = useI18n();
  const t = TEXT[lang];
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
  }, []);
  return (
    <section className="efirma efirma-review" data-testid="own-certificate" data-status={c.status} aria-labelledby="cert-review-title">
      <h2 id="cert-review-title" ref={heading} tabIndex={-1}>
        {t.review}
      </h2>
      <p>{t.reviewIntro}</p>
      <dl>
        <dt>{t.holder}</dt>
        <dd data-field="name">{c.name}</dd>
        <dt>{t.emails}</dt>
        <dd data-field="emails">{c.emails.join(', ')}</dd>
        <dt>{t.issuer}</dt>
        <dd data-field="issuer">{c.issuer}</dd>
        <dt>{t.serial}</dt>
        <dd data-field="serial">{c.serial}</dd>
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

/** The certificate file, the optional key file, the password and the consent. */
function CertificateForm({ p, signing: e }: { p: CertificateStepProps; signing: CertificateSigning }) {
  const { lang } = useI18n();
  const t = TEXT[lang];
  return (
    <form
      id="certificate-form"
      className="efirma"
      onSubmit={(ev) => {
        ev.preventDefault();
        if (e.ready) {
          void e.submit();
        }
      }}
    >
      <h2>{t.heading}</h2>
      <p>{t.intro}</p>
      <label htmlFor="cert-file">{t.file}</label>
      <input
        id="cert-file"
        type="file"
        accept=".p12,.pfx,.pem,.crt,.cer"
        onChange={(ev) => e.setFile(ev.target.files?.[0] ?? null)}
        disabled={p.busy}
      />
      <label htmlFor="cert-key">{t.key}</label>
      <input id="cert-key" type="file" accept=".pem,.key" onChange={(ev) => e.setKeyFile(ev.target.files?.[0] ?? null)} disabled={p.busy} />
      <label htmlFor="cert-password">{t.password}</label>
      <input
        id="cert-password"
        type="password"
        autoComplete="off"
        value={e.password}
        onChange={(ev) => e.setPassword(ev.target.value)}
        disabled={p.busy}
      />
      <div className="consent">
        <input id="cert-consent" type="checkbox" checked={e.consent} onChange={(ev) => e.setConsent(ev.target.checked)} disabled={p.busy} />
        <label htmlFor="cert-consent">{t.consent}</label>
      </div>
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={!e.ready}>
          {p.busy ? t.signing : t.sign}
        </button>
      </div>
    </form>
  );
}
