// The document being prepared, as the editor holds it, and the create body of POST /developers/json
// it stands for. The body is what the draft keeps as its payload (draft-store.ts) and what Send
// posts; the rest (the signers before they have a box, the step, the file's name, a template's
// preview) is the draft's `ui`. Each box is one sticker: a signer with two boxes is two stickers
// with the same authority and data, which the service makes one signer (docs/api.md).
import type { DateFormat } from '../../../../src/schemas/signer-fields.js';
import type { DraftPayload, PanelDraft } from '../draft-store.js';
import type { Rect } from './geometry.js';

export const AUTHORITIES = ['EMAIL_LINK', 'EMAIL', 'SMS', 'WHATSAPP', 'SAT', 'CERT', 'CSC'] as const;
export type Authority = (typeof AUTHORITIES)[number];

export interface PrepSigner {
  key: string;
  name: string;
  authority: Authority;
  data: string;
}

export interface PrepBox {
  key: string;
  /** The key of the signer who signs in it. */
  signer: string;
  page: number;
  rect: Rect;
}

export const FIELD_TYPES = ['text', 'date', 'checkbox', 'initials', 'dropdown'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
/** The service's date formats (typed by its schema, so none can be offered that it refuses); the bundle takes no schema code. */
export const DATE_FORMATS: readonly DateFormat[] = ['DD/MM/YYYY', 'MM/DD/YYYY', 'YYYY-MM-DD', 'DD-MM-YYYY', 'DD.MM.YYYY'];

/** A field a signer fills before signing (decisions.md "Fields signers fill"), placed like a box. */
export interface PrepField {
  key: string;
  /** The key of the signer who fills it. */
  signer: string;
  type: FieldType;
  page: number;
  rect: Rect;
  required: boolean;
  label: string;
  /** text: '', 'email', 'number', or 'pattern' (then `pattern` is the regular expression). */
  format: '' | 'email' | 'number' | 'pattern';
  pattern: string;
  /** dropdown: one choice a line. */
  options: string;
  /** date: how the date is written; '' for the service's default. */
  dateFormat: '' | DateFormat;
}

export interface PrepOptions {
  /** The service sends the invitations, reminders and the conclusion (a `workflow` object). */
  flow: boolean;
  ordered: boolean;
  language: '' | 'es' | 'en';
  /** Days between reminders, as typed; empty: the service's default. */
  remindEvery: string;
  /** yyyy-mm-dd as the date control gives it; empty: the service's default. */
  expiration: string;
  subject: string;
  message: string;
  attachFiles: boolean;
  identity: boolean;
  nom151: 'default' | 'yes' | 'no';
  certifiedTo: string;
  certifiedSubject: string;
  certifiedMessage: string;
}

export interface PrepSource {
  kind: 'none' | 'pdf' | 'template';
  /** The uploaded file's name. */
  fileName: string;
  /** Base64 of the uploaded PDF (kept as the payload's b64_doc, not twice). */
  pdf: string;
  template: string;
  fields: { id: string; value: string }[];
  /** Base64 of the template's PDF made with the values, to show its pages and place the boxes. */
  preview: string;
}

export interface PrepState {
  step: number;
  /** The document's name. */
  name: string;
  source: PrepSource;
  signers: PrepSigner[];
  boxes: PrepBox[];
  fields: PrepField[];
  options: PrepOptions;
}

export const STEPS = ['source', 'signers', 'placement', 'options'] as const;

export function emptyState(): PrepState {
  return {
    step: 0,
    name: '',
    source: { kind: 'none', fileName: '', pdf: '', template: '', fields: [], preview: '' },
    signers: [],
    boxes: [],
    fields: [],
    options: {
      flow: true,
      ordered: false,
      language: '',
      remindEvery: '',
      expiration: '',
      subject: '',
      message: '',
      attachFiles: false,
      identity: false,
      nom151: 'default',
      certifiedTo: '',
      certifiedSubject: '',
      certifiedMessage: '',
    },
  };
}

/** Nothing chosen yet: no draft worth keeping. */
export function isEmpty(s: PrepState): boolean {
  return s.source.kind === 'none' && s.signers.length === 0 && s.name === '';
}

/** The PDF whose pages are shown: the upload, or the template's preview. */
export function shownPdf(s: PrepState): string {
  return s.source.kind === 'pdf' ? s.source.pdf : s.source.kind === 'template' ? s.source.preview : '';
}

/** Each sticker of the body, in order: whose box it is. Signers in their order, each signer's boxes in theirs. */
export function stickerOwners(s: PrepState): { signer: PrepSigner; box: PrepBox }[] {
  return s.signers.flatMap((signer) => s.boxes.filter((b) => b.signer === signer.key).map((box) => ({ signer, box })));
}

const orUndefined = (v: string) => (v.trim() === '' ? undefined : v.trim());

/** yyyy-mm-dd (the date control) as the API's dd/mm/yyyy, the end of that day in the account's time zone. */
export function apiDate(isoDay: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(isoDay);
  return m ? `${m[3]}/${m[2]}/${m[1]}` : undefined;
}

/** The create body this state stands for: only what was chosen, so the service's defaults apply to the rest. */
export function toPayload(s: PrepState): DraftPayload {
  const body: DraftPayload = {};
  if (s.source.kind === 'pdf' && s.source.pdf) {
    body.b64_doc = s.source.pdf;
    body.name = orUndefined(s.name) ?? (orUndefined(s.source.fileName.replace(/\.pdf$/i, '')) as string | undefined);
  } else if (s.source.kind === 'template' && s.source.template) {
    body.template = { title: s.source.template, ...(orUndefined(s.name) ? { name: s.name.trim() } : {}) };
    body.fields = s.source.fields;
  }
  const owners = stickerOwners(s);
  // A field names its signer by a sticker of theirs: the first.
  const firstSticker = new Map<string, number>();
  owners.forEach(({ signer }, i) => {
    if (!firstSticker.has(signer.key)) {
      firstSticker.set(signer.key, i);
    }
  });
  body.stickers = owners.map(({ signer, box }) => ({
    authority: signer.authority,
    data: signer.data.trim(),
    ...(orUndefined(signer.name) ? { name: signer.name.trim() } : {}),
    page: box.page,
    rect: box.rect,
  }));
  if (s.fields.length > 0) {
    body.signer_fields = s.fields.map((f) => signerField(f, firstSticker.get(f.signer) ?? -1));
  }
  const o = s.options;
  if (o.flow) {
    const remind = orUndefined(o.remindEvery);
    body.workflow = {
      ...(o.ordered ? { ordered: true } : {}),
      ...(o.language ? { language: o.language } : {}),
      ...(remind !== undefined ? { remind_every: Number(remind) } : {}),
      ...(apiDate(o.expiration) ? { expiration_date: apiDate(o.expiration) } : {}),
      ...(orUndefined(o.subject) ? { subject: o.subject.trim() } : {}),
      ...(orUndefined(o.message) ? { message: o.message } : {}),
      ...(o.attachFiles ? { attach_files: true } : {}),
    };
  }
  if (o.identity) {
    body.requireIdentityVerification = true;
  }
  if (o.nom151 !== 'default') {
    body.nom151 = o.nom151 === 'yes';
  }
  if (orUndefined(o.certifiedTo)) {
    body.certified_email = { to: o.certifiedTo.trim(), subject: o.certifiedSubject, message: o.certifiedMessage };
  }
  return body;
}

/** One entry of the body's signer_fields: only what applies to its type and was given. */
function signerField(f: PrepField, signer: number) {
  const options = f.options
    .split('\n')
    .map((x) => x.trim())
    .filter(Boolean);
  const format = f.format === 'pattern' ? f.pattern : f.format;
  return {
    type: f.type,
    signer,
    page: f.page,
    rect: f.rect,
    ...(f.required ? { required: true } : {}),
    ...(f.label.trim() ? { label: f.label.trim() } : {}),
    ...(f.type === 'text' && format ? { format } : {}),
    ...(f.type === 'dropdown' ? { options } : {}),
    ...(f.type === 'date' && f.dateFormat ? { date_format: f.dateFormat } : {}),
  };
}

/** The editor's part of the draft: everything but the PDF, which the payload carries. */
export function toUi(s: PrepState): Record<string, unknown> {
  return { prepare: { ...s, source: { ...s.source, pdf: '' } } };
}

/** The state a saved draft stands for; a draft this editor did not write starts from its payload's PDF. */
export function fromDraft(d: PanelDraft): PrepState {
  const saved = (d.ui as { prepare?: PrepState } | undefined)?.prepare;
  const b64 = typeof d.payload.b64_doc === 'string' ? d.payload.b64_doc : '';
  const base = emptyState();
  if (!saved) {
    return b64 ? { ...base, name: String(d.payload.name ?? ''), source: { ...base.source, kind: 'pdf', pdf: b64 } } : base;
  }
  return {
    ...base,
    ...saved,
    source: { ...base.source, ...saved.source, pdf: saved.source?.kind === 'pdf' ? b64 : '' },
    options: { ...base.options, ...saved.options },
  };
}

let counter = 0;
/** A key for a new signer or box, unique in this editor (and across reloads: time-based). */
export function newKey(prefix: string): string {
  counter += 1;
  return `${prefix}${Date.now().toString(36)}${counter}`;
}
