// DER <-> PEM (RFC 7468). Strict on the armour lines, lenient on whitespace inside them, so a
// certificate pasted from an e-mail or a config file still loads.
import { PkiError } from './errors.js';

/** One armoured block: its label ("CERTIFICATE", "PRIVATE KEY", ...) and the decoded bytes. */
export interface PemBlock {
  label: string;
  der: Buffer;
}

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

/** Encodes DER as PEM with 64-character lines (RFC 7468 §2, "strict" generation). */
export function derToPem(der: Uint8Array, label: string): string {
  const base64 = Buffer.from(der).toString('base64');
  const lines = base64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** Every armoured block in `text`, in order; headers of legacy encrypted PEM are kept out of the DER. */
export function pemBlocks(text: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  for (const match of text.matchAll(BLOCK)) {
    const body = match[2]
      .split(/\r?\n/)
      // RFC 1421 headers (Proc-Type, DEK-Info) are not base64; node:crypto reads those keys itself.
      .filter((line) => !line.includes(':'))
      .join('')
      .replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) {
      throw new PkiError('bad_pem', `the ${match[1]} block is not valid base64`);
    }
    blocks.push({ label: match[1], der: Buffer.from(body, 'base64') });
  }
  return blocks;
}

/** The DER of the single block labelled `label`; throws when there is none or more than one. */
export function pemToDer(text: string, label: string): Buffer {
  const found = pemBlocks(text).filter((block) => block.label === label);
  if (found.length !== 1) {
    throw new PkiError('bad_pem', `expected exactly one ${label} block, found ${found.length}`);
  }
  return found[0].der;
}

/** The DER of every CERTIFICATE block, in order (a chain file, a bundle). */
export function pemCertificates(text: string): Buffer[] {
  return pemBlocks(text)
    .filter((block) => block.label === 'CERTIFICATE')
    .map((block) => block.der);
}

/** Concatenated PEM of several certificates (chain.pem). */
export function certificatesToPem(ders: readonly Uint8Array[]): string {
  return ders.map((der) => derToPem(der, 'CERTIFICATE')).join('');
}
