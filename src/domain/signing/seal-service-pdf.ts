// The service's seal on a PDF it issues itself (the history PDF, the certified-email evidence): a
// PAdES B-T signature by a one-time certificate naming the service, with a time stamp, and a box at
// the foot of the last page, so the copy can be checked offline with pdfsig.
import { PDF } from '@libpdf/core';
import type { Deps } from '../deps.js';
import { signPdf } from '../../pdf/sign-pdf.js';
import { issueOneTimeCertificate } from './one-time-certificate.js';
import { timestampSource } from './timestamp-source.js';

/** Room a sealed page keeps free at its foot for the seal (points); the layout's bottom margin. */
export const SEAL = { width: 220, height: 64, margin: 40 };
const A4 = { width: 595.28, height: 841.89 };

export async function sealServicePdf(
  deps: Pick<Deps, 'db' | 'config' | 'pki' | 'externalTsa' | 'signerKeys'>,
  o: {
    pdf: Buffer;
    fieldName: string;
    /** What the seal's certificate and appearance call the signer, after the organization. */
    sealName: string;
    sealLabel: string;
    reason: string;
    now: Date;
    language: 'es' | 'en';
    documentId: string;
  },
): Promise<Buffer> {
  const who = `${deps.config.pki.organization} — ${o.sealName}`;
  const cert = await issueOneTimeCertificate(deps, deps.db, {
    name: who,
    uri: deps.config.publicUrl,
    kind: 'seal',
    documentId: o.documentId,
    now: o.now,
  });
  const tsa = timestampSource(deps);
  const pages = (await PDF.load(o.pdf)).getPageCount(); // the service's own output, read on this thread
  const signed = await signPdf({
    pdf: o.pdf,
    fieldName: o.fieldName,
    boxes: [
      {
        page: pages - 1,
        rect: { lx: A4.width - 40 - SEAL.width, ly: SEAL.margin - 20, tx: A4.width - 40, ty: SEAL.margin - 20 + SEAL.height },
      },
    ],
    appearance: {
      typedSignature: deps.config.pki.organization,
      signerName: who,
      signedAt: o.now,
      authorityLabel: o.sealLabel,
      locale: o.language,
    },
    signer: { certificateDer: cert.certificateDer, privateKey: cert.privateKey, chainDer: [cert.certificateDer, ...cert.chainDer] },
    timestamp: tsa.timestamp,
    trustedRootsDer: tsa.trustedRootsDer,
    now: () => o.now,
    reason: o.reason,
  });
  return signed.pdf;
}
