// The SAT signer's step: the .cer and .key files and the key's password, read in this page only
// (efirma.ts). The certificate goes to the service, which prepares the signature; the page signs
// what comes back with the key and sends only the signature value. The key and the password are
// never sent: they live in this component's state and in a non-extractable CryptoKey.
import { useState } from 'react';
import { ApiError, finishSat, type Lang, prepareSat, type SignResult } from '../api';
import { EfirmaError, type EfirmaProblem, fromBase64, openEfirma, signPrepared, toBase64 } from '../efirma';
import { useI18n } from '../i18n';

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
    problems: {
      bad_cer: 'El archivo .cer no es un certificado legible.',
      bad_key: 'El archivo .key no es una llave privada del SAT.',
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
    problems: {
      bad_cer: 'The .cer file is not a readable certificate.',
      bad_key: 'The .key file is not an SAT private key.',
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
}

const readFile = async (input: File | null) => (input ? new Uint8Array(await input.arrayBuffer()) : null);

export function EfirmaStep(p: EfirmaStepProps) {
  const { lang } = useI18n();
  const t = TEXT[lang];
  const [cer, setCer] = useState<File | null>(null);
  const [key, setKey] = useState<File | null>(null);
  const [password, setPassword] = useState('');
  const [consent, setConsent] = useState(false);
  const ready = cer !== null && key !== null && password.length > 0 && consent && !p.busy;

  const submit = () =>
    p.run(async () => {
      const [cerBytes, keyBytes] = await Promise.all([readFile(cer), readFile(key)]);
      let efirma: Awaited<ReturnType<typeof openEfirma>>;
      try {
        efirma = await openEfirma(cerBytes!, keyBytes!, password, p.rfc);
      } catch (err) {
        if (err instanceof EfirmaError) {
          // Checked here, before anything is sent: the code names the problem, the text explains it.
          throw new ApiError(0, `EFIRMA_${err.problem.toUpperCase()}`, t.problems[err.problem]);
        }
        throw err;
      }
      const opened: OpenedEfirma = {
        certificate: toBase64(efirma.certificate),
        sign: async (attrs) => toBase64(await signPrepared(efirma.key, fromBase64(attrs))),
      };
      if (p.signWith) {
        await p.signWith(opened);
        return;
      }
      const prepared = await prepareSat(p.token, opened.certificate, p.language);
      p.onSigned(await finishSat(p.token, prepared.preparation_id, await opened.sign(prepared.signed_attributes)));
    });

  return (
    <form
      id="efirma-form"
      className="efirma"
      onSubmit={(e) => {
        e.preventDefault();
        if (ready) {
          void submit();
        }
      }}
    >
      <h2>{t.heading}</h2>
      <p>{t.intro(p.rfc)}</p>
      <label htmlFor="efirma-cer">{t.cer}</label>
      <input id="efirma-cer" type="file" accept=".cer" onChange={(e) => setCer(e.target.files?.[0] ?? null)} disabled={p.busy} />
      <label htmlFor="efirma-key">{t.key}</label>
      <input id="efirma-key" type="file" accept=".key" onChange={(e) => setKey(e.target.files?.[0] ?? null)} disabled={p.busy} />
      <label htmlFor="efirma-password">{t.password}</label>
      <input
        id="efirma-password"
        type="password"
        autoComplete="off"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        disabled={p.busy}
      />
      <div className="consent">
        <input id="efirma-consent" type="checkbox" checked={consent} onChange={(e) => setConsent(e.target.checked)} disabled={p.busy} />
        <label htmlFor="efirma-consent">{t.consent}</label>
      </div>
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={!ready}>
          {p.busy ? t.signing : t.sign}
        </button>
      </div>
    </form>
  );
}
