// The set signing API the page talks to on /sign/set/{token} (src/http/routes/set-signing.ts): one
// link for every document of a set where the signer has a box. Same-origin, the token is the credential.
import { call, type FieldValues, type Lang, type Signature } from './api';
import type { CertPrepared } from '../../src/schemas/cert-signing.js';
import type { CscAuthorization } from '../../src/schemas/csc-signing.js';
import type { SatPrepared } from '../../src/schemas/sat-signing.js';
import type { SetDocument, SetSigningInfo, SetSignResult } from '../../src/schemas/signing.js';
import type { IdentityApi } from './components/IdentityStep';

// The answers' shapes are the API's own schemas (src/schemas/signing.ts), as types only.
export type { SetDocument, SetSigningInfo, SetSignResult };

/** /sign/set/{token}: the page of a document set. */
export function isSetLocation(pathname = window.location.pathname): boolean {
  return pathname.startsWith('/sign/set/');
}

const base = (token: string) => `/sign/api/set/${encodeURIComponent(token)}`;

export const getSetInfo = (token: string) => call<SetSigningInfo>('GET', base(token));

/** `language` is the page's: the signature's legend in the PDFs is drawn in it. */
export const signSet = (token: string, signature: Signature, language: Lang, fieldValues?: FieldValues) =>
  call<SetSignResult>('POST', `${base(token)}/sign`, { signature, consent: true, language, field_values: fieldValues });

export const rejectSet = (token: string, reason: string) =>
  call<{ status: 'rejected'; rejected_at: string; set_status: string }>('POST', `${base(token)}/reject`, { reason });

export const sendSetCode = (token: string) => call<{ status: 'sent'; to: string; expires_at: string }>('POST', `${base(token)}/otp`);

export const verifySetCode = (token: string, code: string) =>
  call<{ status: 'verified'; verified_at: string }>('POST', `${base(token)}/otp/verify`, { code });

/** SAT e.firma on a set link, step one for one document of the set. */
export const prepareSetSat = (token: string, ticket: string, certificate: string, language: Lang, fieldValues?: FieldValues) =>
  call<SatPrepared>('POST', `${base(token)}/sat/prepare`, {
    certificate,
    consent: true,
    language,
    document_ticket: ticket,
    field_values: fieldValues,
  });

/** Step two for that document: only the signature value goes up; answers the set as it stands. */
export const finishSetSat = (token: string, ticket: string, preparationId: string, signature: string) =>
  call<SetSignResult>('POST', `${base(token)}/sat/finish`, { document_ticket: ticket, preparation_id: preparationId, signature });

/** An own certificate (CERT) on a set link, step one for one document of the set. */
export const prepareSetCert = (token: string, ticket: string, certificate: string, language: Lang, fieldValues?: FieldValues) =>
  call<CertPrepared>('POST', `${base(token)}/certificate/prepare`, {
    certificate,
    consent: true,
    language,
    document_ticket: ticket,
    field_values: fieldValues,
  });

/** Step two for that document: only the signature value goes up; answers the set as it stands. */
export const finishSetCert = (token: string, ticket: string, preparationId: string, signature: string) =>
  call<SetSignResult>('POST', `${base(token)}/certificate/finish`, { document_ticket: ticket, preparation_id: preparationId, signature });

/** Remote signing (CSC) on a set link: where to send the signer to authorize every document of the set at once. */
export const authorizeSetCsc = (token: string, language: Lang, fieldValues?: FieldValues) =>
  call<CscAuthorization>('POST', `${base(token)}/csc/authorize`, { language, field_values: fieldValues });

type IdentityState = SetSigningInfo['signer']['identity'];

/** Identity verification on a set link: once for every document of the set (IdentityStep.tsx). */
export const setIdentityApi: IdentityApi = {
  send: (token, kind, image) => call<IdentityState>('POST', `${base(token)}/identity/${kind}`, { image }),
  submit: (token) => call<IdentityState>('POST', `${base(token)}/identity/submit`, {}),
  provider: (token) => call<{ url: string }>('POST', `${base(token)}/identity/provider`, {}),
};
