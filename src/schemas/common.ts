// The building blocks every area's shapes share. src/schemas/ holds the one definition of each
// request and response of the API as TypeBox schemas: the routes (http/) validate and document
// with them, and the domain, the client and the signer page take their types from them with
// Static<typeof X>. It imports nothing but TypeBox and the registry of error codes (error-codes.ts, a plain list),
// so the domain depends on plain data shapes, never on Fastify or on http/ (DESIGN.md: no HTTP in
// domain/), and the web app can import its types without pulling in server code.
import { type Static, type TSchema, type TUnsafe, Type } from '@sinclair/typebox';
import { ERROR_CODES, type ErrorCode } from './error-codes.js';

/** `null` allowed: a value that is absent until known (a signature time, a name not given). */
export const Nullable = <T extends TSchema>(t: T, options: { description?: string } = {}) => Type.Union([t, Type.Null()], options);

/**
 * Gives a schema its examples, typed by the schema. @fastify/swagger shows them in the OpenAPI
 * document as the example of the request or response, and the OpenAPI lint test checks each one
 * against the schema (no-invalid-media-type-examples).
 */
export function examples<T extends TSchema>(schema: T, ...values: Static<T>[]): void {
  (schema as TSchema).examples = values;
}

/** A string from a fixed list: an `enum` in the OpenAPI document, a union of literals in TypeScript. */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string } = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/**
 * Marks a part of a request whose rules the use case checks, because they depend on what only it
 * knows (the PDF's pages and their size, the account's limits) or because its messages name the
 * sticker index and the rule broken (decisions.md), which clients rely on. The OpenAPI document
 * shows the part in full; the request validator (http/validation.ts) skips it.
 */
export const CHECKED_BY_USE_CASE = 'x-checked-by-use-case';
export const checkedByUseCase = { [CHECKED_BY_USE_CASE]: true } as const;

export const DateTime = (description?: string) => Type.String({ format: 'date-time', ...(description ? { description } : {}) });

/** A box in PDF points, in the page's unrotated user space, origin at the lower-left corner of its CropBox. */
export const Rect = Type.Object(
  { lx: Type.Number(), ly: Type.Number(), tx: Type.Number(), ty: Type.Number() },
  { description: 'PDF points, unrotated user space, origin at the lower-left corner of the CropBox; lx < tx, ly < ty' },
);

/** A page of a PDF as the signer pages draw it: its visible size (CropBox) and rotation. */
export const PageSize = Type.Object({
  page: Type.Integer({ description: '0-based' }),
  width: Type.Number(),
  height: Type.Number(),
  rotation: Type.Integer(),
});

export const AUTHORITY_NAMES = ['EMAIL_LINK', 'EMAIL', 'SMS', 'WHATSAPP', 'SAT', 'CERT', 'CSC'] as const;
export const AuthorityName = StringEnum(AUTHORITY_NAMES);

/** The language of a workflow's emails and of the signer page; null when the workflow sets none. */
export const PageLanguage = Nullable(StringEnum(['es', 'en']), { description: "the workflow's language, or null" });

export const ErrorResponse = Type.Object(
  {
    error: Type.Object(
      {
        // Every code of the registry (schemas/error-codes.ts), not a list per operation: which codes an
        // operation can answer is known only to the use cases it calls, so a shorter list would guess.
        code: StringEnum(Object.keys(ERROR_CODES) as ErrorCode[], {
          description: 'the error code; each is listed in docs/api.md "Errors"',
        }),
        message: Type.String({ description: 'what is wrong, naming the field' }),
        details: Type.Optional(Type.Unknown()),
      },
      { additionalProperties: true },
    ),
  },
  { description: 'Every error but 401 (whose body is empty)' },
);
examples(ErrorResponse, {
  error: {
    code: 'INVALID_STICKER',
    message: 'stickers[2].page: page 9 does not exist; the document has 2 page(s), numbered from 0',
    details: { sticker_index: 2, field: 'page', rule: 'page 9 does not exist; the document has 2 page(s), numbered from 0' },
  },
});

export const TicketParam = (description = 'the document_ticket') => Type.String({ description });

/** A response that is a PDF file itself, not JSON. */
export const PdfFile = {
  description: 'the PDF',
  content: { 'application/pdf': { schema: Type.Unsafe<Uint8Array>({ type: 'string', format: 'binary' }) } },
};

/** A POST that carries nothing: an absent body, or a JSON object that is ignored. */
export const NoBody = Type.Optional(Type.Object({}, { description: 'no body needed' }));

/** A request body of raw bytes (a DER request, a multipart upload): read and checked by the handler. */
export const BinaryBody = (description: string) =>
  Type.Unsafe<unknown>({ type: 'string', format: 'binary', description, ...checkedByUseCase });
