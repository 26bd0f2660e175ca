// What the measured child processes of the benchmark share (scenarios F, U and V): the service PKI
// carried over IPC, the peak-RSS measurement of one workload, and the service's signature made
// outside any timing to prepare an input.
import { readFileSync, writeFileSync } from 'node:fs';
import type { Clock } from '../src/domain/deps.js';
import type { timestampSource } from '../src/domain/signing/timestamp-source.js';
import { signPdf } from '../src/pdf/sign-pdf.js';
import { type KeyPairPool, type PkiMaterial, type LoadedPki, issueSignerCertificate, pkiUrls, randomSerialHex } from '../src/pki/index.js';

/** The service PKI as it crosses to a child: Buffers as Base64 over the IPC channel, no key on disk. */
export type MaterialMessage = Record<
  keyof Pick<PkiMaterial, 'issuing' | 'tsa' | 'ocsp'>,
  { certificateDer: string; privateKeyPkcs8: string }
> & {
  root: { certificateDer: string; privateKeyPkcs8?: string };
};

const b64 = (v: Buffer) => v.toString('base64');
const keyed = (k: { certificateDer: Buffer; privateKeyPkcs8?: Buffer }) => ({
  certificateDer: b64(k.certificateDer),
  privateKeyPkcs8: b64(k.privateKeyPkcs8!), // the bench's material is generated in software
});

export function encodeMaterial(material: PkiMaterial): MaterialMessage {
  return {
    root: {
      certificateDer: b64(material.root.certificateDer),
      privateKeyPkcs8: material.root.privateKeyPkcs8 && b64(material.root.privateKeyPkcs8),
    },
    issuing: keyed(material.issuing),
    tsa: keyed(material.tsa),
    ocsp: keyed(material.ocsp),
  };
}

export function decodeMaterial(m: MaterialMessage): PkiMaterial {
  const b = (s: string) => Buffer.from(s, 'base64');
  return {
    root: { certificateDer: b(m.root.certificateDer), privateKeyPkcs8: m.root.privateKeyPkcs8 ? b(m.root.privateKeyPkcs8) : undefined },
    issuing: { certificateDer: b(m.issuing.certificateDer), privateKeyPkcs8: b(m.issuing.privateKeyPkcs8) },
    intermediatesDer: [],
    tsa: { certificateDer: b(m.tsa.certificateDer), privateKeyPkcs8: b(m.tsa.privateKeyPkcs8) },
    ocsp: { certificateDer: b(m.ocsp.certificateDer), privateKeyPkcs8: b(m.ocsp.privateKeyPkcs8) },
  };
}

export type PeakMethod = 'VmHWM' | 'sampled';

const kib = (field: string) => {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
};

/**
 * Resets the kernel's peak-RSS mark (Linux, clear_refs "5"), so that VmHWM then covers only what
 * follows. Where that is refused, RSS is sampled every 2 ms instead; a synchronous step that peaks
 * between two samples is then missed, so the sampled figure is a lower bound.
 */
export function startPeakRss(): { stop: () => { peak: number; method: PeakMethod } } {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return { stop: () => ({ peak: kib('VmHWM'), method: 'VmHWM' }) };
  } catch {
    let peak = process.memoryUsage.rss();
    const timer = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 2);
    return {
      stop: () => {
        clearInterval(timer);
        return { peak: Math.max(peak, process.memoryUsage.rss()), method: 'sampled' };
      },
    };
  }
}

export interface BenchSigner {
  name: string;
  email: string;
  fieldName: string;
  box: { page: number; rect: { lx: number; ly: number; tx: number; ty: number } };
  /** A drawn signature; without it the box shows the name only. */
  image?: Buffer;
}

/** Signs `pdf` once per signer as the service does (one-time certificate, time stamp), outside any timing. */
export async function signAsService(
  pdf: Uint8Array,
  signers: BenchSigner[],
  ctx: { pki: LoadedPki; tsa: ReturnType<typeof timestampSource>; publicUrl: string; keys: KeyPairPool; clock: Clock },
): Promise<Uint8Array> {
  const urls = pkiUrls(ctx.publicUrl);
  for (const s of signers) {
    const now = ctx.clock.now();
    const cert = await issueSignerCertificate(ctx.pki, {
      name: s.name,
      email: s.email,
      serialNumber: randomSerialHex(),
      now,
      ocspUrl: urls.ocsp,
      crlUrl: urls.crl,
      caIssuersUrl: urls.issuingCer,
      keys: ctx.keys,
    });
    const signed = await signPdf({
      pdf,
      fieldName: s.fieldName,
      boxes: [s.box],
      appearance: { image: s.image, signerName: s.name, signedAt: now, authorityLabel: 'Email link', locale: 'en' },
      signer: { certificateDer: cert.certificateDer, privateKey: cert.privateKey, chainDer: [cert.certificateDer, ...cert.chainDer] },
      timestamp: ctx.tsa.timestamp,
      trustedRootsDer: ctx.tsa.trustedRootsDer,
      now: () => now,
    });
    pdf = signed.pdf;
  }
  return pdf;
}
