// The API behind document_url (src/http/routes/document-page.ts): the document with every box, its
// PDF, and asking for a personal link. The ticket in the page's URL is what gives access; every call
// is same-origin.
import { ApiError } from './api';
import type { DocumentPage, LinkAnswer } from '../../src/schemas/signing.js';

// The answers' shapes are the API's own schemas (src/schemas/signing.ts), as types only.
export type { DocumentPage, LinkAnswer };

/** The ticket is the last path segment of /document/{ticket}. */
export function ticketFromLocation(pathname = window.location.pathname): string {
  const parts = pathname.split('/').filter(Boolean);
  return decodeURIComponent(parts[parts.length - 1] ?? '');
}

const base = (ticket: string) => `/sign/api/document/${encodeURIComponent(ticket)}`;

async function failure(res: Response): Promise<ApiError> {
  const json = (await res.json().catch(() => undefined)) as
    | { error?: { code?: string; message?: string; details?: Record<string, unknown> } }
    | undefined;
  return new ApiError(res.status, json?.error?.code ?? `HTTP_${res.status}`, json?.error?.message ?? res.statusText, json?.error?.details);
}

async function request(url: string, init: RequestInit): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, cache: 'no-store', credentials: 'omit' });
  } catch {
    throw new ApiError(0, 'NETWORK', 'network error');
  }
  if (!res.ok) {
    throw await failure(res);
  }
  return res;
}

export async function getDocumentPage(ticket: string): Promise<DocumentPage> {
  const res = await request(base(ticket), { headers: { accept: 'application/json' } });
  return (await res.json()) as DocumentPage;
}

/** Same answer whether or not the address is the signer's (the server does not say). */
export async function requestLink(ticket: string, stickerId: string, email: string): Promise<LinkAnswer> {
  const res = await request(`${base(ticket)}/link`, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify({ sticker_id: stickerId, data: email }),
  });
  return (await res.json()) as LinkAnswer;
}

/** A PDF by its URL, as bytes for pdf.js (errors in the API's shape). */
export async function fetchPdf(url: string): Promise<Uint8Array> {
  const res = await request(url, {});
  return new Uint8Array(await res.arrayBuffer());
}
