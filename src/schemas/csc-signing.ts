// Remote signing with a CSC provider (routes/csc-signing.ts): the page asks where to send the
// signer, the provider sends them back to the callback with a code.
import { type Static, Type } from '@sinclair/typebox';
import { DateTime, StringEnum, examples } from './common.js';
import { FieldValues } from './signer-fields.js';

export const CscAuthorizeBody = Type.Object({
  provider: Type.Optional(Type.String({ description: "the provider's name as the operator configured it; the first one when absent" })),
  language: Type.Optional(StringEnum(['es', 'en'], { description: "the page's language, for the signature's legend" })),
  field_values: Type.Optional(FieldValues),
});
export type CscAuthorizeBody = Static<typeof CscAuthorizeBody>;
examples(CscAuthorizeBody, { provider: 'Example TSP', language: 'en' });

export const CscAuthorization = Type.Object({
  authorize_url: Type.String({ description: "the provider's authorization page: send the signer there" }),
  provider: Type.String(),
  expires_at: DateTime('come back from the provider before this time, or start again'),
});
export type CscAuthorization = Static<typeof CscAuthorization>;
examples(CscAuthorization, {
  authorize_url: 'https://tsp.example.com/csc/v2/oauth2/authorize?response_type=code&client_id=sello&scope=credential&state=...',
  provider: 'Example TSP',
  expires_at: '2026-11-23T10:10:00.000Z',
});

export const CscCallbackQuery = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 2048 })),
  state: Type.Optional(Type.String({ maxLength: 256 })),
  error: Type.Optional(Type.String({ maxLength: 256 })),
  error_description: Type.Optional(Type.String({ maxLength: 2048 })),
});
