// The service's error, shown where it belongs: the API names the field it refuses (`details.field`,
// or a sticker's index and field: `stickers[1].data`), and that name leads to the control the person
// filled in, on its step. Stickers are boxes, so a sticker's signer data leads to that signer's row
// and its page or rect to that box.
import type { PrepState } from './state.js';
import { stickerOwners } from './state.js';

export const ids = {
  signer: (key: string, part: 'name' | 'authority' | 'data') => `signer-${key}-${part}`,
  signerBoxes: (key: string) => `signer-${key}-boxes`,
  box: (key: string) => `box-${key}`,
  field: (key: string) => `field-${key}`,
  fieldPart: (key: string, part: 'label' | 'required' | 'format' | 'pattern' | 'options' | 'date') => `field-${key}-${part}`,
  option: (name: string) => `opt-${name}`,
  templateField: (i: number) => `tpl-field-${i}`,
  source: 'src-file',
  template: 'src-template',
  name: 'doc-name',
};

export interface ErrorPlace {
  step: number;
  /** The control's id; none: the step as a whole. */
  id?: string;
}

/** The API's name for the field an error concerns. */
export function errorField(details: unknown, message: string): string | undefined {
  const d = (details ?? {}) as { field?: unknown; sticker_index?: unknown };
  if (typeof d.sticker_index === 'number' && typeof d.field === 'string') {
    return `stickers[${d.sticker_index}].${d.field}`;
  }
  if (typeof d.field === 'string') {
    return d.field;
  }
  // Every message starts with the field it names (docs/api.md "Errors").
  return /^([A-Za-z_][\w.[\]]*):/.exec(message)?.[1];
}

const WORKFLOW_OPTIONS: Record<string, string> = {
  ordered: 'ordered',
  language: 'language',
  remind_every: 'remind',
  remindEvery: 'remind',
  expiration_date: 'expiration',
  expirationDate: 'expiration',
  subject: 'subject',
  message: 'message',
  attach_files: 'attach',
  attachFiles: 'attach',
};

/** Where the field named `field` is edited in this state, or null when no control holds it. */
export function errorPlace(field: string | undefined, s: PrepState): ErrorPlace | null {
  if (!field) {
    return null;
  }
  const sticker = /^stickers\[(\d+)\](?:\.(\w+))?/.exec(field);
  if (sticker) {
    const owner = stickerOwners(s)[Number(sticker[1])];
    if (!owner) {
      return { step: 1 };
    }
    const part = sticker[2] ?? '';
    if (part === 'page' || part === 'rect') {
      return { step: 2, id: ids.box(owner.box.key) };
    }
    return { step: 1, id: ids.signer(owner.signer.key, part === 'name' ? 'name' : part === 'authority' ? 'authority' : 'data') };
  }
  const signerField = /^signer_fields\[(\d+)\](?:\.(\w+))?/.exec(field);
  if (signerField) {
    const f = s.fields[Number(signerField[1])];
    if (!f) {
      return { step: 2 };
    }
    const part = signerField[2] ?? '';
    const parts: Record<string, 'label' | 'required' | 'format' | 'options' | 'date'> = {
      label: 'label',
      required: 'required',
      format: 'format',
      options: 'options',
      date_format: 'date',
    };
    const at = parts[part];
    return { step: 2, id: at ? ids.fieldPart(f.key, at === 'format' && f.format === 'pattern' ? 'pattern' : at) : ids.field(f.key) };
  }
  if (field === 'stickers') {
    return { step: 1 };
  }
  const workflow = /^workflow\.(\w+)/.exec(field);
  if (workflow) {
    const o = WORKFLOW_OPTIONS[workflow[1]];
    return { step: 3, id: o ? ids.option(o) : undefined };
  }
  if (field === 'workflow') {
    return { step: 3 };
  }
  const certified = /^certified_email(?:\.(to|subject|message))?/.exec(field);
  if (certified) {
    return { step: 3, id: ids.option(`certified-${certified[1] ?? 'to'}`) };
  }
  if (field === 'requireIdentityVerification') {
    return { step: 3, id: ids.option('identity') };
  }
  if (field === 'nom151') {
    return { step: 3, id: ids.option('nom151') };
  }
  const tplField = /^fields\[(\d+)\]/.exec(field);
  if (tplField) {
    return { step: 0, id: ids.templateField(Number(tplField[1])) };
  }
  if (field === 'name' || field.startsWith('template.name')) {
    return { step: 0, id: ids.name };
  }
  if (field.startsWith('template')) {
    return { step: 0, id: ids.template };
  }
  if (field.startsWith('b64_doc') || field.startsWith('url_doc')) {
    return { step: 0, id: ids.source };
  }
  return null;
}
