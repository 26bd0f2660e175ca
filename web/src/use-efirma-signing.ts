// The e.firma step's state and its signature (EfirmaStep.tsx): the files and the password as the
// signer gives them, opened and checked in this page (efirma.ts); the certificate goes to the
// service, the signer confirms it, and only the signature value is sent. The key and the password
// never leave this hook's state and a non-extractable CryptoKey.
import { useState } from 'react';
import { ApiError, finishSat, prepareSat, type SatPrepared } from './api';
import type { EfirmaStepProps, OpenedEfirma } from './components/EfirmaStep';
import { EfirmaError, type EfirmaProblem, fromBase64, openEfirma, signPrepared, toBase64 } from './efirma';
import { useSignerFields, withFieldValues } from './use-signer-fields';

export type Certificate = SatPrepared['certificate'];

const readFile = async (input: File | null) => (input ? new Uint8Array(await input.arrayBuffer()) : null);

export function useEfirmaSigning(p: EfirmaStepProps, problems: Record<EfirmaProblem, string>) {
  const [cer, setCer] = useState<File | null>(null);
  const [key, setKey] = useState<File | null>(null);
  const [password, setPassword] = useState('');
  const [consent, setConsent] = useState(false);
  const [review, setReview] = useState<{ certificate: Certificate; answer: (sign: boolean) => void } | null>(null);
  const ready = cer !== null && key !== null && password.length > 0 && consent && !p.busy;
  const fields = useSignerFields();

  /** Opens the key with the password here; a problem is named before anything is sent. */
  const open = async (): Promise<OpenedEfirma> => {
    const [cerBytes, keyBytes] = await Promise.all([readFile(cer), readFile(key)]);
    let efirma: Awaited<ReturnType<typeof openEfirma>>;
    try {
      efirma = await openEfirma(cerBytes!, keyBytes!, password, p.rfc);
    } catch (err) {
      if (err instanceof EfirmaError) {
        // Checked here, before anything is sent: the code names the problem, the text explains it.
        throw new ApiError(0, `EFIRMA_${err.problem.toUpperCase()}`, problems[err.problem]);
      }
      throw err;
    }
    return {
      certificate: toBase64(efirma.certificate),
      sign: async (attrs) => toBase64(await signPrepared(efirma.key, fromBase64(attrs))),
      confirm: (certificate) =>
        new Promise<boolean>((resolve) =>
          setReview({
            certificate,
            answer: (sign) => {
              setReview(null);
              resolve(sign);
            },
          }),
        ),
    };
  };

  // The fields the signer fills are checked before the key is opened: a value to correct stops here.
  const submit = async () => {
    if (fields && !fields.check()) {
      return;
    }
    await sat();
  };
  const sat = () =>
    p.run(async () => {
      const opened = await open();
      if (p.signWith) {
        await p.signWith(opened);
        return;
      }
      // The values go with the certificate: the revision prepared here is the one signed.
      const prepared = await withFieldValues(fields, (values) => prepareSat(p.token, opened.certificate, p.language, values));
      if (!(await opened.confirm(prepared.certificate))) {
        return;
      }
      p.onSigned(await finishSat(p.token, prepared.preparation_id, await opened.sign(prepared.signed_attributes)));
    });

  return { cer, setCer, key, setKey, password, setPassword, consent, setConsent, review, ready, submit };
}

export type EfirmaSigning = ReturnType<typeof useEfirmaSigning>;
