// The signer page's calls as the page makes them, for tests that need a document signed through
// the public signing API: the page opened (recorded in the history as the signer's view), then a
// drawn signature sent with consent.
import { expect } from 'vitest';
import { signaturePng } from './validators.js';

/** The token at the end of a signer URL. */
export const signerToken = (signerUrl: string): string => signerUrl.split('/').pop()!;

/** Sends a drawn signature with consent for `token`, without opening the page first. */
export function postDrawnSignature(baseUrl: string, token: string): Promise<Response> {
  return fetch(`${baseUrl}/sign/api/${token}/sign`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      signature: { type: 'drawn', image: `data:image/png;base64,${signaturePng().toString('base64')}` },
      consent: true,
    }),
  });
}

/** Opens the signer page of `signerUrl`, then signs it with a drawing; the signature must be accepted. */
export async function openAndSign(baseUrl: string, signerUrl: string): Promise<void> {
  const token = signerToken(signerUrl);
  await fetch(`${baseUrl}/sign/api/${token}`);
  const res = await postDrawnSignature(baseUrl, token);
  expect(res.status, await res.clone().text()).toBe(200);
}
