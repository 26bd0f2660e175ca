// The state of the fields a signer fills (signer-fields.ts): their values, which problems are shown
// (a field's once the signer has left it, every one once they try to sign), the check that stops a
// signature and takes the signer to the first field to correct, the body sent with the signature,
// and a refusal from the service shown at the field it names. Shared through a context, so the
// boxes on the pages, the list in the signing section and every way of signing use one state.
import { createContext, useCallback, useContext, useMemo, useState } from 'react';
import { ApiError } from './api';
import { useI18n } from './i18n';
import {
  type FieldProblem,
  type FieldValue,
  type FieldValues,
  fieldProblems,
  fieldValuesBody,
  formatDay,
  initialValues,
  initialsOf,
  parseIsoDay,
  refusedField,
  type SignerField,
} from './signer-fields';

export interface SignerFieldsOptions {
  /** The signer's name, for the initials offered. */
  signerName: string | null;
  /** The clock; injected in tests. */
  now?: () => Date;
}

/** The element id of a field's control in the signing section (the one a problem takes the signer to). */
export const fieldControlId = (id: string) => `signer-field-${id}`;

export function useSignerFieldsState(fields: SignerField[], { signerName, now = () => new Date() }: SignerFieldsOptions) {
  const { t } = useI18n();
  // The default day is the session's (the signing day in the document's time zone), read once when
  // the page opens: a date that changed while the signer reads would change a value they saw.
  const [openedAt] = useState(now);
  // What the signer changed; every other field keeps its default (also a field that comes with a
  // later load of the page's data, e.g. once an ordered flow reaches the signer).
  const [edits, setValues] = useState<FieldValues>({});
  const defaults = useMemo(
    () => initialValues(fields, { now: openedAt, initials: initialsOf(signerName) }),
    [fields, openedAt, signerName],
  );
  const values = useMemo(() => ({ ...defaults, ...edits }), [defaults, edits]);
  const [touched, setTouched] = useState<Set<string>>(() => new Set());
  // What the service refused of a field, until the signer changes that field.
  const [refused, setRefused] = useState<Record<string, FieldProblem | 'refused'>>({});

  const problems = useMemo(() => fieldProblems(fields, values), [fields, values]);
  const initials = useMemo(() => fields.filter((f) => f.type === 'initials'), [fields]);
  /** The control a field is filled in: one for all the initials boxes. */
  const controlId = (field: SignerField) => fieldControlId(field.type === 'initials' && initials.length > 0 ? initials[0].id : field.id);

  /** One field's value; the initials are one value for every initials box. */
  const set = useCallback(
    (field: SignerField, value: FieldValue) => {
      const ids = field.type === 'initials' ? initials.map((f) => f.id) : [field.id];
      setValues((prev) => ({ ...prev, ...Object.fromEntries(ids.map((id) => [id, value])) }));
      setRefused((prev) => Object.fromEntries(Object.entries(prev).filter(([id]) => !ids.includes(id))));
    },
    [initials],
  );

  /**
   * The signer leaves a field: its problem shows from now on if they changed it. A field only
   * passed through (tabbing, or tapping elsewhere) says nothing until they try to sign, so the
   * page does not shift under the tap that left it.
   */
  const leave = (field: SignerField) => {
    if (field.id in edits) {
      setTouched((prev) => new Set(prev).add(field.id));
    }
  };

  /** The words shown at a field now, or null. */
  const messageOf = (field: SignerField): string | null => {
    const said = refused[field.id];
    if (said) {
      return said === 'refused' ? t.fields.refused : t.fields.problem[said];
    }
    const problem: FieldProblem | undefined = problems[field.id];
    return problem && (touched.has(field.id) || touched.has(controlId(field))) ? t.fields.problem[problem] : null;
  };

  /** Whether the values can be signed; if not, every problem is shown and the first field focused. */
  const check = (): boolean => {
    const wrong = fields.filter((f) => problems[f.id] || refused[f.id]);
    if (wrong.length === 0) {
      return true;
    }
    setTouched(new Set(fields.map((f) => f.id)));
    document.getElementById(controlId(wrong[0]))?.focus();
    return false;
  };

  /** Shows a refusal of the service at the field it names; whether it named one. */
  const refuse = (err: unknown): boolean => {
    if (!(err instanceof ApiError)) {
      return false;
    }
    const id = refusedField(err.details, fields);
    if (!id) {
      return false;
    }
    // Said in the page's words (kept as the problem, so a change of language says it anew): the
    // service's message names the field by id, for developers.
    const kind = err.code === 'REQUIRED_FIELD_MISSING' ? 'required' : (problems[id] ?? 'refused');
    setRefused((prev) => ({ ...prev, [id]: kind }));
    const field = fields.find((f) => f.id === id);
    if (field) {
      document.getElementById(controlId(field))?.focus();
    }
    return true;
  };

  /** The day a date field will carry, written as it will be. */
  const dateText = (field: SignerField): string | null => {
    const day = parseIsoDay(String(values[field.id] ?? ''));
    return day ? formatDay(day, field.date_format) : null;
  };

  return {
    fields,
    values,
    set,
    leave,
    messageOf,
    check,
    refuse,
    dateText,
    controlId,
    initials,
    /** How many problems stop the signature now. */
    wrongCount: Object.keys(problems).length,
    /** `field_values` for the signing body (undefined when the signer has no fields). */
    body: (only?: (f: SignerField) => boolean): FieldValues | undefined =>
      fields.length === 0 ? undefined : fieldValuesBody(only ? fields.filter(only) : fields, values),
  };
}

export type SignerFieldsState = ReturnType<typeof useSignerFieldsState>;

/** The signer's fields on this page, or null where the page has none to fill. */
export const SignerFieldsContext = createContext<SignerFieldsState | null>(null);

export const useSignerFields = () => useContext(SignerFieldsContext);

/**
 * Runs `send` with the field values when they can be signed; otherwise stops (the problems shown
 * at their fields). A refusal naming a field is shown there too, and still thrown for the page.
 */
export async function withFieldValues<T>(
  fields: SignerFieldsState | null,
  send: (fieldValues: FieldValues | undefined) => Promise<T>,
  only?: (f: SignerField) => boolean,
): Promise<T> {
  try {
    return await send(fields?.body(only));
  } catch (err) {
    fields?.refuse(err);
    throw err;
  }
}
