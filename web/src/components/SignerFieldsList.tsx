// The fields the signer fills, listed above the way they sign: on a phone they are filled here one
// under the other without hunting for their boxes on the pages (the boxes show the same values).
// The initials are one control for every initials box.
import { useI18n } from '../i18n';
import { useSignerFields } from '../use-signer-fields';
import { SignerFieldControl } from './SignerFieldControl';

export function SignerFieldsList({ disabled }: { disabled?: boolean }) {
  const { t } = useI18n();
  const state = useSignerFields();
  if (!state || state.fields.length === 0) {
    return null;
  }
  const listed = state.fields.filter((f) => f.type !== 'initials' || f.id === state.initials[0]?.id);
  const wrong = new Set(state.fields.filter((f) => state.messageOf(f)).map(state.controlId)).size;
  return (
    <section className="signer-fields" aria-labelledby="signer-fields-title" data-testid="signer-fields">
      <fieldset disabled={disabled}>
        <legend id="signer-fields-title" className="section-title">
          {t.fields.heading}
        </legend>
        <p className="hint">{t.fields.intro(listed.length)}</p>
        {listed.map((f) => (
          <SignerFieldControl
            key={f.id}
            field={f}
            state={state}
            id={state.controlId(f)}
            label={f.type === 'initials' ? t.fields.initialsLabel : undefined}
            hint={f.type === 'initials' ? t.fields.initialsHint(state.initials.length) : undefined}
          />
        ))}
        {wrong > 0 && (
          <p className="notice notice-error" data-testid="fields-fix">
            {t.fields.fix(wrong)}
          </p>
        )}
      </fieldset>
    </section>
  );
}
