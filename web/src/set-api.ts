// The set signing API the page talks to on /sign/set/{token} (src/http/routes/set-signing.ts): one
// link for every document of a set where the signer has a box. Same-origin, the token is the credential.
import { call, type Lang, type Rect, type Signature } from './api';

export interface SetDocument {
  document_ticket: string;
  name: string;
  status: string;
  signer_status: string;
  signed_at: string | null;
  pages: { page: number; width: number; height: number; rotation: number }[];
  boxes: { sticker_id: string; page: number; rect: Rect }[];
  pdf_url: string;
}

export interface SetSigningInfo {
  set: { uuid: string; name: string; status: string };
  signer: {
    signer_id: string;
    name: string | null;
    email: string | null;
    authority: string;
    status: string;
    signed_at: string | null;
    proof: 'link' | 'email_code' | 'not_available';
    verified: boolean;
    /** false while an ordered flow has not reached this signer. */
    due: boolean;
  };
  signers: { name: string | null; status: string }[];
  documents: SetDocument[];
  language: Lang | null;
}

export interface SetSignResult {
  status: 'signed';
  signed_at: string;
  set_status: string;
  documents: { document_ticket: string; status: string; signer_status: string }[];
}

/** /sign/set/{token}: the page of a document set. */
export function isSetLocation(pathname = window.location.pathname): boolean {
  return pathname.startsWith('/sign/set/');
}

const base = (token: string) => `/sign/api/set/${encodeURIComponent(token)}`;

export const getSetInfo = (token: string) => call<SetSigningInfo>('GET', base(token));

export const signSet = (token: string, signature: Signature) =>
  call<SetSignResult>('POST', `${base(token)}/sign`, { signature, consent: true });

export const rejectSet = (token: string, reason: string) =>
  call<{ status: 'rejected'; rejected_at: string; set_status: string }>('POST', `${base(token)}/reject`, { reason });

export const sendSetCode = (token: string) => call<{ status: 'sent'; to: string; expires_at: string }>('POST', `${base(token)}/otp`);

export const verifySetCode = (token: string, code: string) =>
  call<{ status: 'verified'; verified_at: string }>('POST', `${base(token)}/otp/verify`, { code });
