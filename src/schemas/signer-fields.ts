// Fields signers fill (decisions.md, "Fields signers fill"): text, date, checkbox, initials and
// dropdown boxes placed like stickers and assigned to one signer, who fills them before signing.
// The create payload places them (`signer_fields`), the signing session lists the signer's own
// (`signer_fields`), and every body that makes the signer's revision carries the values
// (`field_values`). The values become AcroForm fields of the revision that signer signs.
import { type Static, Type } from '@sinclair/typebox';
import { Nullable, Rect, StringEnum, checkedByUseCase } from './common.js';

export const SIGNER_FIELD_TYPES = ['text', 'date', 'checkbox', 'initials', 'dropdown'] as const;
export type SignerFieldType = (typeof SIGNER_FIELD_TYPES)[number];

/**
 * The date formats a date field may show, written with DD (day), MM (month) and YYYY (year). A
 * small fixed set: each one both formats the default and parses what the signer types, with no
 * locale guessing.
 */
export const DATE_FORMATS = ['DD/MM/YYYY', 'MM/DD/YYYY', 'YYYY-MM-DD', 'DD-MM-YYYY', 'DD.MM.YYYY'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];
/** The format of a date field that names none: the one the API's own dates use (workflow.expiration_date). */
export const DEFAULT_DATE_FORMAT: DateFormat = 'DD/MM/YYYY';

/** One field of the create payload's `signer_fields`. */
export const SignerFieldInput = Type.Object({
  type: StringEnum(SIGNER_FIELD_TYPES),
  signer: Type.Integer({ minimum: 0, description: "index into stickers: that sticker's signer fills this field" }),
  page: Type.Integer({ minimum: 0, description: '0-based' }),
  rect: Rect,
  required: Type.Optional(Type.Boolean({ description: 'the signer cannot sign while it is empty (a checkbox: unticked); default false' })),
  label: Type.Optional(Type.String({ maxLength: 100, description: 'shown to the signer and listed in the report' })),
  format: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'text: "email", "number", or a regular expression the whole value must match (at most 200 characters, no nested quantifiers such as (a+)+)',
    }),
  ),
  options: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 100, description: 'dropdown: the choices' }),
  ),
  date_format: Type.Optional(StringEnum(DATE_FORMATS, { description: 'date: how the date is written; default DD/MM/YYYY' })),
});
export type SignerFieldInput = Static<typeof SignerFieldInput>;

// checkedByUseCase: measured against the PDF's pages and the stickers, with messages naming
// signer_fields[i] and the rule (as stickers are), never a bare schema error.
export const SignerFieldsInput = Type.Array(SignerFieldInput, {
  ...checkedByUseCase,
  maxItems: 200,
  description: 'fields the signers fill before signing (text, date, checkbox, initials, dropdown); rules: docs/api.md',
});

/** A value a signer gives: a checkbox's true/false, otherwise the text shown (a date as written). */
export const FieldValue = Type.Union([Type.String({ maxLength: 1000 }), Type.Boolean()]);
export type FieldValue = Static<typeof FieldValue>;

// checkedByUseCase: each refusal names field_values.<id> with INVALID_FIELD_VALUE or
// REQUIRED_FIELD_MISSING, which the signer page shows at the field.
export const FieldValues = Type.Record(Type.String(), FieldValue, {
  ...checkedByUseCase,
  description:
    'the values of the fields this signer fills, by field id (signer_fields[].id); checkbox: true/false; date: the date as shown',
});
export type FieldValues = Static<typeof FieldValues>;

/** One field as the signing session shows it to the signer who fills it. */
export const SignerFieldView = Type.Object({
  id: Type.String({ description: 'stable id of the field: the key of field_values' }),
  type: StringEnum(SIGNER_FIELD_TYPES),
  page: Type.Integer({ description: '0-based' }),
  rect: Rect,
  required: Type.Boolean(),
  label: Nullable(Type.String()),
  format: Nullable(Type.String({ description: '"email", "number", a regular expression, or null' })),
  options: Nullable(Type.Array(Type.String()), { description: 'dropdown: the choices; null otherwise' }),
  date_format: Nullable(StringEnum(DATE_FORMATS), { description: 'date: how the date is written; null otherwise' }),
  value: Type.Optional(
    Type.Union([Type.String(), Type.Boolean()], {
      description:
        'once signed: the value filled; before, for a date field: the default, the signing date today in the time zone of time_zone',
    }),
  ),
  time_zone: Type.Optional(Type.String({ description: "date: the time zone of the default date (the account's), to show beside it" })),
});
export type SignerFieldView = Static<typeof SignerFieldView>;

/** What the report and the webhook payload list per signer. */
export const FilledSignerField = Type.Object({
  label: Nullable(Type.String()),
  type: StringEnum(SIGNER_FIELD_TYPES),
  value: Nullable(Type.Union([Type.String(), Type.Boolean()]), { description: 'null: left empty' }),
  page: Type.Integer({ description: '0-based' }),
});
export type FilledSignerField = Static<typeof FilledSignerField>;

/** A field as the create answer gives it back: its id (the key of field_values) and whose it is. */
export const CreatedSignerField = Type.Object({
  id: Type.String({ description: 'the field id: the key of field_values when signing' }),
  signer: Type.Integer({ description: 'the sticker index sent' }),
  signer_id: Type.String({ description: "the signer who fills it (CreatedSticker's signer_id)" }),
  type: StringEnum(SIGNER_FIELD_TYPES),
  page: Type.Integer(),
  rect: Rect,
  label: Nullable(Type.String()),
});
export type CreatedSignerField = Static<typeof CreatedSignerField>;
