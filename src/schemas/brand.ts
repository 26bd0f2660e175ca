// The sender's brand and the embedding mode of an account, through the account API
// (GET and POST /api/account/brand) and the panel (/panel/api/brand); checked by
// domain/accounts/account-brand.ts.
import { type Static, Type } from '@sinclair/typebox';
import { Nullable, examples } from './common.js';

const fields = {
  frame_origins: Type.Array(Type.String({ maxLength: 300 }), {
    maxItems: 20,
    description: 'origins (https://host[:port]) allowed to show the signer pages in a frame; [] allows none',
  }),
  brand_name: Nullable(Type.String({ maxLength: 300 }), { description: 'the name beside the logo in the signer page header' }),
  brand_colour: Nullable(Type.String({ maxLength: 20 }), {
    description: '#rrggbb, the header and buttons of the signer page; white text on it must reach 4.5:1',
  }),
  email_sender_name: Nullable(Type.String({ maxLength: 300 }), { description: "the From name of the account's emails" }),
  email_reply_to: Nullable(Type.String({ maxLength: 300 }), { description: "the Reply-To of the account's emails" }),
  hide_sello: Type.Boolean({ description: "leave Sello's name out of the signer pages, emails and verify page" }),
};

export const AccountBrand = Type.Object({
  ...fields,
  logo: Nullable(Type.String(), { description: 'the logo as a data:image/png;base64 URL' }),
});
export type AccountBrand = Static<typeof AccountBrand>;
examples(AccountBrand, {
  frame_origins: ['https://app.example.com'],
  brand_name: 'Notaría 12',
  brand_colour: '#0b5394',
  email_sender_name: 'Notaría 12',
  email_reply_to: 'firmas@notaria12.example',
  hide_sello: true,
  logo: null,
});

/** Every field optional: what is absent stays; null clears a text field or the logo. */
export const AccountBrandUpdate = Type.Partial(
  Type.Object({
    ...fields,
    logo: Nullable(Type.String({ maxLength: 140_000 }), {
      description: 'a PNG in Base64 (at most 100 KiB, 2000×2000 pixels), or null to remove it',
    }),
  }),
);
export type AccountBrandUpdate = Static<typeof AccountBrandUpdate>;
examples(AccountBrandUpdate, { brand_colour: '#0b5394', frame_origins: ['https://app.example.com'] });

/** The operator's brand, shown by the panel's sign-in page (SELLO_OPERATOR_*). */
export const OperatorBrandView = Type.Object({
  name: Type.String(),
  colour: Nullable(Type.String()),
  logo: Nullable(Type.String({ description: 'a data:image/png;base64 URL' })),
});
export type OperatorBrandView = Static<typeof OperatorBrandView>;
