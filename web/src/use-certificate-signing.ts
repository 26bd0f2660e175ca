// The own-certificate step's state and its signature (CertificateStep.tsx): the file, an optional
// separate key and the password as the signer gives them, opened in this page (own-certificate.ts);
// the certificate goes to the service, the signer confirms it as the service checked it, and only
// the signature value is sent. The key and the password never leave this hook's state and a
// non-extractable CryptoKey.
import { useState } from 'react';
import { ApiError, type CertPrepared, type Lang, type SignResult, finishCert, prepareCert } from './api';
import { fromBase64, toBase64 } from './efirma';
import { CertificateError, type CertificateProblem, openOwnCertificate, signWithOwnKey } from './own-certificate';
import { useSignerFields, withFieldValues } from './use-signer-fields';

export type CheckedCertificate = CertPrepared['certificate'];

export interface CertificateStepProps {
  token: string;
  language: Lang;
  busy: boolean;
  /** Runs the signature as the page's other actions run (busy state, errors shown). */
  run: (action: () => Promise<void>) => Promise<void>;
  onSigned: (result: SignResult) => void;
  /**
   * Signs something else than the page's one document (a set: each of its documents in turn), with
   * the opened certificate; the key never leaves this page.
   */
  signWith?: (opened: OpenedCertificate) => Promise<void>;
}

/** What a signing flow needs of the opened certificate: the certificate to send, the key's signature, the signer's look. */
export interface OpenedCertificate {
  /** DER in Base64. */
  certificate: string;
  /** The signature value prepare asked for over its signed attributes, Base64. */
  sign: (prepared: CertPrepared) => Promise<string>;
  /** Shows the certificate as the service checked it and waits for the signer: true to sign. */
  confirm: (certificate: CheckedCertificate) => Promise<boolean>;
}

const readFile = async (input: File | null) => (input ? new Uint8Array(await input.arrayBuffer()) : null);

export function useCertificateSigning(p: CertificateStepProps, problems: Record<CertificateProblem, string>) {
  const [file, setFile] = useState<File | null>(null);
  const [keyFile, setKeyFile] = useState<File | null>(null);
  const [password, setPassword] = useState('');
  const [consent, setConsent] = useState(false);
  const [review, setReview] = useState<{ certificate: CheckedCertificate; answer: (sign: boolean) => void } | null>(null);
  const ready = file !== null && consent && !p.busy;
  const fields = useSignerFields();

  const confirm = (certificate: CheckedCertificate) =>
    new Promise<boolean>((resolve) =>
      setReview({
        certificate,
        answer: (sign) => {
          setReview(null);
          resolve(sign);
        },
      }),
    );

  // The fields the signer fills are checked before the certificate is opened.
  const submit = async () => {
    if (fields && !fields.check()) {
      return;
    }
    await sign();
  };
  const sign = () =>
    p.run(async () => {
      const [bytes, keyBytes] = await Promise.all([readFile(file), readFile(keyFile)]);
      let opened: Awaited<ReturnType<typeof openOwnCertificate>>;
      try {
        opened = await openOwnCertificate(bytes!, keyBytes, password);
      } catch (err) {
        if (err instanceof CertificateError) {
          // Checked here, before anything is sent: the code names the problem, the text explains it.
          throw new ApiError(0, `CERTIFICATE_${err.problem.toUpperCase()}`, problems[err.problem]);
        }
        throw err;
      }
      const sign = async (prepared: CertPrepared) =>
        toBase64(await signWithOwnKey(opened.key, prepared, fromBase64(prepared.signed_attributes)));
      const certificate = toBase64(opened.certificate);
      if (p.signWith) {
        await p.signWith({ certificate, sign, confirm });
        return;
      }
      // The values go with the certificate: the revision prepared here is the one signed.
      const prepared = await withFieldValues(fields, (values) => prepareCert(p.token, certificate, p.language, values));
      if (!(await confirm(prepared.certificate))) {
        return;
      }
      p.onSigned(await finishCert(p.token, prepared.preparation_id, await sign(prepared)));
    });

  return { file, setFile, keyFile, setKeyFile, password, setPassword, consent, setConsent, review, ready, submit };
}

export type CertificateSigning = ReturnType<typeof useCertificateSigning>;
