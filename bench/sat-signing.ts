// Scenario S of `npm run bench`: a signature with the signer's own SAT e.firma, its two service
// steps timed apart, on a 1-page PDF and on a 300-page PDF of about 10 MB:
//   prepare  read and check the certificate (RFC, kind, chain to the SAT root), write the revision
//            with the appearance and an empty /Contents, build the signed attributes
//   finish   verify the signature value against the certificate, assemble the CMS with the chain,
//            time stamp from the built-in TSA, write it into the placeholder, check the prefix
// The signer's own RSA signature (done by the browser) is timed apart, as the signer's cost. What
// is not timed: HTTP, the rows and blobs of the two requests, and the SAT's OCSP responder (its
// latency is the SAT's). The certificate is a test one shaped like the SAT's, made by openssl.
// In this process, one signature at a time. Prints figures; asserts nothing about timings.
import { createHash, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Db } from '../src/store/db.js';
import { createPkiResponder } from '../src/domain/pki/pki-responses.js';
import { timestampSource } from '../src/domain/signing/timestamp-source.js';
import { finishExternalSignature, prepareExternalSignature } from '../src/pdf/external-signature.js';
import { generateServicePki, importPki, pemCertificates, validateChain } from '../src/pki/index.js';
import { readSatCertificate, splitTrust } from '../src/pki/sat-certificate.js';
import { createSatTestPki } from '../test/helpers/sat-pki.js';
import { percentile } from './load.js';
import { manyPagesPdf, onePagePdf } from './pdfs.js';

const SMALL = Number(process.env.BENCH_S_SMALL ?? 40);
const LARGE = Number(process.env.BENCH_S_LARGE ?? 10);
const TSA_POLICY_OID = '2.25.44711949293045456837671144841923094334';

const fmt = (v: number) => v.toFixed(1);

export async function scenarioSatSigning(): Promise<void> {
  const material = await generateServicePki({ organization: 'Sello Bench', baseUrl: 'https://sello.example', now: new Date() });
  const responder = createPkiResponder(
    { db: undefined as unknown as Db, clock: { now: () => new Date() } },
    await importPki(material),
    TSA_POLICY_OID,
  );
  const tsa = timestampSource({ pki: responder });
  const sat = await createSatTestPki();
  try {
    const rfc = 'GOLM800101AB1';
    const cred = await sat.issue({ rfc, curp: 'GOLM800101MDFMPR09', name: 'MARIA GOMEZ LOPEZ' });
    const trust = splitTrust(pemCertificates(readFileSync(sat.trustPemPath, 'utf8')));
    console.log('S  SAT e.firma: prepare and finish (service side, no HTTP/DB), the signer’s RSA-2048 signature apart');
    const inputs = [
      { name: '1 page', bytes: Buffer.from((await onePagePdf()).bytes), iterations: SMALL },
      { name: '300 pages', bytes: await manyPagesPdf(300, 10e6), iterations: LARGE },
    ];
    for (const input of inputs) {
      const prepare: number[] = [];
      const signer: number[] = [];
      const finish: number[] = [];
      for (let i = -2; i < input.iterations; i++) {
        const t0 = performance.now();
        const cert = readSatCertificate(cred.cer);
        const path = validateChain(cred.cer, { trustedRootsDer: trust.anchors, untrustedDer: trust.intermediates, at: [new Date()] });
        if (cert.rfc !== rfc || !path.ok) {
          throw new Error('the bench certificate does not check');
        }
        const prepared = await prepareExternalSignature({
          pdf: input.bytes,
          fieldName: 'Sello-bench',
          boxes: [{ page: 0, rect: { lx: 320, ly: 80, tx: 520, ty: 150 } }],
          appearance: { signerName: cert.name, signedAt: new Date(), authorityLabel: `e.firma SAT: ${cert.rfc}`, locale: 'es' },
          certificateDer: cred.cer,
          chainDer: path.path.slice(1),
          now: () => new Date(),
        });
        createHash('sha256').update(prepared.pdf).digest(); // the blob's key, as the store computes it
        const t1 = performance.now();
        const value = sign('sha256', prepared.signedAttributes, cred.privateKey);
        const t2 = performance.now();
        const signed = await finishExternalSignature({
          original: input.bytes,
          prepared,
          certificateDer: cred.cer,
          chainDer: path.path.slice(1),
          signatureValue: value,
          timestamp: tsa.timestamp,
          timestampRootsDer: tsa.trustedRootsDer,
        });
        createHash('sha256').update(signed).digest();
        const t3 = performance.now();
        if (i >= 0) {
          prepare.push(t1 - t0);
          signer.push(t2 - t1);
          finish.push(t3 - t2);
        }
      }
      const line = (label: string, xs: number[]) => {
        const sorted = [...xs].sort((a, b) => a - b);
        return `${label} p50 ${fmt(percentile(sorted, 50))} ms, p99 ${fmt(percentile(sorted, 99))} ms`.padEnd(44);
      };
      console.log(
        `   ${input.name.padEnd(9)} (${fmt(input.bytes.length / 1e6)} MB, n=${input.iterations}): ${line('prepare', prepare)}${line('finish', finish)}${line('signer', signer)}`,
      );
    }
  } finally {
    sat.dispose();
  }
}
