// The signing API the page talks to (src/http/routes/signing.ts). The token in the page's URL is
// the credential; every call is same-origin.
// The answers' shapes are the API's own schemas (src/schemas/), imported as types only: nothing of
// them reaches the bundle.
import type { Static } from '@sinclair/typebox';
import type { Rect as RectSchema } from '../../src/schemas/common.js';
import type { CodeSent, CodeVerified, RejectResult, SignBody, SignResult, SigningInfo } from '../../src/schemas/signing.js';
import type { SatPrepared } from '../../src/schemas/sat-signing.js';
import type { CertPrepared } from '../../src/schemas/cert-signing.js';
import type { CscAuthorization } from '../../src/schemas/csc-signing.js';

export type { SatPrepared };
export type { CertPrepared };

export type { CodeSent, CodeVerified, RejectResult, SignResult, SigningInfo };

export type Lang = 'es' | 'en';
export type Rect = Static<typeof RectSchema>;
export type Signature = SignBody['signature'];

/** An error answered by the API (`{error: {code, message, details}}`), or a network failure. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** The token is the last path segment of /sign/{token}. */
export function tokenFromLocation(pathname = window.location.pathname): string {
  const parts = pathname.split('/').filter(Boolean);
  return decodeURIComponent(parts[parts.length - 1] ?? '');
}

const base = (token: string) => `/sign/api/${encodeURIComponent(token)}`;

export const pdfUrl = (token: string) => `${base(token)}/pdf`;

export async function call<T>(method: 'GET' | 'POST', url: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch {
    throw new ApiError(0, 'NETWORK', 'network error');
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    const err = (json as { error?: { code?: string; message?: string; details?: Record<string, unknown> } } | undefined)?.error;
    throw new ApiError(res.status, err?.code ?? `HTTP_${res.status}`, err?.message ?? res.statusText, err?.details);
  }
  return json as T;
}

export const getInfo = (token: string) => call<SigningInfo>('GET', base(token));

/** The values of the fields the signer fills, by field id (signer-fields.ts); sent with the signature. */
export type FieldValues = Record<string, string | boolean>;

/**
 * `language` is the page's: the signature's legend in the PDF is drawn in it. `fieldValues` are
 * written in the revision this signature covers.
 */
export const sign = (token: string, signature: Signature, language: Lang, fieldValues?: FieldValues) =>
  call<SignResult>('POST', `${base(token)}/sign`, { signature, consent: true, language, field_values: fieldValues });

/** SAT e.firma, step one: only the certificate goes up; the answer holds the bytes to sign. */
export const prepareSat = (token: string, certificate: string, language: Lang, fieldValues?: FieldValues) =>
  call<SatPrepared>('POST', `${base(token)}/sat/prepare`, { certificate, consent: true, language, field_values: fieldValues });

/** SAT e.firma, step two: only the signature value goes up. */
export const finishSat = (token: string, preparationId: string, signature: string) =>
  call<SignResult>('POST', `${base(token)}/sat/finish`, { preparation_id: preparationId, signature });

/** CERT: the signer's own certificate goes up; the bytes to sign come back (docs/api.md). */
export const prepareCert = (token: string, certificate: string, language: Lang, fieldValues?: FieldValues) =>
  call<CertPrepared>('POST', `${base(token)}/certificate/prepare`, { certificate, consent: true, language, field_values: fieldValues });

export const finishCert = (token: string, preparationId: string, signature: string) =>
  call<SignResult>('POST', `${base(token)}/certificate/finish`, { preparation_id: preparationId, signature });

/** CSC: where to send the signer to authorize the signature at their trust service provider. */
export const authorizeCsc = (token: string, language: Lang, fieldValues?: FieldValues) =>
  call<CscAuthorization>('POST', `${base(token)}/csc/authorize`, { language, field_values: fieldValues });

export const sendCode = (token: string) => call<CodeSent>('POST', `${base(token)}/otp`);

export const verifyCode = (token: string, code: string) => call<CodeVerified>('POST', `${base(token)}/otp/verify`, { code });

export const reject = (token: string, reason: string) => call<RejectResult>('POST', `${base(token)}/reject`, { reason });

/** The PDF as it stands, as bytes for pdf.js (errors in the API's shape). */
export async function getPdf(token: string): Promise<Uint8Array> {
  const res = await fetch(pdfUrl(token), { cache: 'no-store', credentials: 'omit' });
  if (!res.ok) {
    const json = (await res.json().catch(() => undefined)) as { error?: { code?: string; message?: string } } | undefined;
    throw new ApiError(res.status, json?.error?.code ?? `HTTP_${res.status}`, json?.error?.message ?? res.statusText);
  }
  return new Uint8Array(await res.arrayBuffer());
}

/** Identity verification: one image (front, back of the identity document, or selfie), Base64. */
export const sendIdentityImage = (token: string, kind: 'front' | 'back' | 'selfie', image: string) =>
  call<SigningInfo['signer']['identity']>('POST', `${base(token)}/identity/${kind}`, { image });

/** Identity verification: the three images go to review. */
export const submitIdentity = (token: string) => call<SigningInfo['signer']['identity']>('POST', `${base(token)}/identity/submit`, {});

/** Identity verification with the operator's provider: where to send the signer. */
export const startIdentityProvider = (token: string) => call<{ url: string }>('POST', `${base(token)}/identity/provider`, {});
