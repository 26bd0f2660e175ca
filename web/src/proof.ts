// How a signer proves who they are, as the signing info's `proof` says, and what the page shows
// for it: the link alone, a one-time code sent by email, SMS or WhatsApp, or (elsewhere) the e.firma.
export type CodeChannel = 'email' | 'sms' | 'whatsapp';

const CHANNELS: Record<string, CodeChannel> = { email_code: 'email', sms_code: 'sms', whatsapp_code: 'whatsapp' };

/** The channel the signer's code goes to, or null when no code proves them. */
export function codeChannelOf(proof: string): CodeChannel | null {
  return CHANNELS[proof] ?? null;
}

/** Whether the pad can be offered (the link or a code proves the signer), and whether a code is still due. */
export function signingMode(signer: { proof: string; verified: boolean }): { available: boolean; needsCode: boolean } {
  const channel = codeChannelOf(signer.proof);
  return { available: signer.proof === 'link' || channel !== null, needsCode: channel !== null && !signer.verified };
}
