// Step 4: the options the API has for a document (docs/api.md, POST /developers/json and
// "Workflows"): whether the service runs the flow, and then its order, language, reminders,
// expiration and message; identity verification, the NOM-151 stamp and a certified email.
import { CheckField, SelectField, TextField, TextAreaField } from '../fields';
import { usePanelI18n } from '../panel-i18n';
import { ids } from './field-errors';
import type { PrepOptions } from './state';
import type { Prepare } from './use-prepare';

export function OptionsStep({ p, zone }: { p: Prepare; zone: string }) {
  const { t } = usePanelI18n();
  const o = p.state!.options;
  const set =
    <K extends keyof PrepOptions>(key: K, id: string) =>
    (value: PrepOptions[K]) =>
      p.update((x) => ({ ...x, options: { ...x.options, [key]: value } }), ids.option(id));
  const err = (id: string) => p.errors[ids.option(id)];
  return (
    <>
      <p className="hint">{t.optionsIntro}</p>
      <CheckField
        id={ids.option('flow')}
        label={t.optFlow}
        hint={t.optFlowHint}
        checked={o.flow}
        onChange={(e) => set('flow', 'flow')(e.target.checked)}
      />
      {o.flow && (
        <fieldset className="prepare-fieldset">
          <legend className="visually-hidden">{t.optFlow}</legend>
          <CheckField
            id={ids.option('ordered')}
            label={t.optOrdered}
            error={err('ordered')}
            checked={o.ordered}
            onChange={(e) => set('ordered', 'ordered')(e.target.checked)}
          />
          <SelectField
            box="field"
            id={ids.option('language')}
            label={t.optLanguage}
            value={o.language}
            error={err('language')}
            onChange={(e) => set('language', 'language')(e.target.value as PrepOptions['language'])}
          >
            <option value="">{t.optLanguageDefault}</option>
            <option value="es">Español</option>
            <option value="en">English</option>
          </SelectField>
          <TextField
            box="field"
            id={ids.option('remind')}
            label={t.optRemind}
            hint={t.optRemindHint}
            type="number"
            min={0}
            max={365}
            value={o.remindEvery}
            error={err('remind')}
            onChange={(e) => set('remindEvery', 'remind')(e.target.value)}
          />
          <TextField
            box="field"
            id={ids.option('expiration')}
            label={t.optExpiration}
            hint={t.optExpirationHint(zone)}
            type="date"
            value={o.expiration}
            error={err('expiration')}
            onChange={(e) => set('expiration', 'expiration')(e.target.value)}
          />
          <TextField
            box="field"
            id={ids.option('subject')}
            label={t.optSubject}
            maxLength={200}
            value={o.subject}
            error={err('subject')}
            onChange={(e) => set('subject', 'subject')(e.target.value)}
          />
          <TextAreaField
            id={ids.option('message')}
            label={t.optMessage}
            maxLength={5000}
            rows={4}
            value={o.message}
            error={err('message')}
            onChange={(e) => set('message', 'message')(e.target.value)}
          />
          <CheckField
            id={ids.option('attach')}
            label={t.optAttach}
            error={err('attach')}
            checked={o.attachFiles}
            onChange={(e) => set('attachFiles', 'attach')(e.target.checked)}
          />
        </fieldset>
      )}
      <CheckField
        id={ids.option('identity')}
        label={t.optIdentity}
        error={err('identity')}
        checked={o.identity}
        onChange={(e) => set('identity', 'identity')(e.target.checked)}
      />
      <SelectField
        box="field"
        id={ids.option('nom151')}
        label={t.optNom151}
        value={o.nom151}
        error={err('nom151')}
        onChange={(e) => set('nom151', 'nom151')(e.target.value as PrepOptions['nom151'])}
      >
        <option value="default">{t.optNom151Default}</option>
        <option value="yes">{t.optNom151Yes}</option>
        <option value="no">{t.optNom151No}</option>
      </SelectField>
      <TextField
        box="field"
        id={ids.option('certified-to')}
        label={t.optCertifiedTo}
        type="email"
        value={o.certifiedTo}
        error={err('certified-to')}
        onChange={(e) => set('certifiedTo', 'certified-to')(e.target.value)}
      />
      {o.certifiedTo.trim() && (
        <>
          <TextField
            box="field"
            id={ids.option('certified-subject')}
            label={t.optCertifiedSubject}
            value={o.certifiedSubject}
            error={err('certified-subject')}
            onChange={(e) => set('certifiedSubject', 'certified-subject')(e.target.value)}
          />
          <TextAreaField
            id={ids.option('certified-message')}
            label={t.optCertifiedMessage}
            rows={3}
            value={o.certifiedMessage}
            error={err('certified-message')}
            onChange={(e) => set('certifiedMessage', 'certified-message')(e.target.value)}
          />
        </>
      )}
    </>
  );
}
