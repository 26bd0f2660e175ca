// Step 2: the signers, each with a name and the authority that identifies them, with that
// authority's datum (docs/api.md "Authorities": an email, a phone in E.164 form, an RFC). The
// service checks them at Send; its refusal is shown at the field it names.
import { SelectField, TextField } from '../fields';
import { usePanelI18n } from '../panel-i18n';
import { ids } from './field-errors';
import { AUTHORITIES, type Authority, newKey, type PrepSigner } from './state';
import type { Prepare } from './use-prepare';

/** Which hint (words/documents.ts dataHint) describes an authority's datum. */
export const dataKind = (a: Authority): 'email' | 'phone' | 'rfc' =>
  a === 'SMS' || a === 'WHATSAPP' ? 'phone' : a === 'SAT' ? 'rfc' : 'email';

export function SignersStep({ p }: { p: Prepare }) {
  const { t } = usePanelI18n();
  const s = p.state!;
  const add = () => {
    const key = newKey('s');
    p.update((x) => ({ ...x, signers: [...x.signers, { key, name: '', authority: 'EMAIL_LINK', data: '' }] }), 'add-signer');
    p.focus(ids.signer(key, 'name'));
  };
  return (
    <>
      <p className="hint">{t.signersIntro}</p>
      {s.signers.length === 0 && <p>{t.noSignersYet}</p>}
      {s.signers.map((signer, i) => (
        <SignerRow key={signer.key} p={p} signer={signer} index={i} />
      ))}
      <div className="actions">
        <button
          type="button"
          id="add-signer"
          className="button button-secondary"
          onClick={add}
          aria-describedby={p.errors['add-signer'] ? 'add-signer-error' : undefined}
          data-testid="add-signer"
        >
          {t.addSigner}
        </button>
        {p.errors['add-signer'] && (
          <span id="add-signer-error" className="field-error" role="alert">
            {p.errors['add-signer']}
          </span>
        )}
      </div>
    </>
  );
}

function SignerRow({ p, signer, index }: { p: Prepare; signer: PrepSigner; index: number }) {
  const { t } = usePanelI18n();
  const label = signer.name.trim() || t.signerN(index + 1);
  const set = (part: 'name' | 'authority' | 'data', value: string) =>
    p.update(
      (x) => ({ ...x, signers: x.signers.map((g) => (g.key === signer.key ? { ...g, [part]: value } : g)) }),
      ids.signer(signer.key, part),
    );
  const remove = () => {
    p.update((x) => ({
      ...x,
      signers: x.signers.filter((g) => g.key !== signer.key),
      boxes: x.boxes.filter((b) => b.signer !== signer.key),
      fields: x.fields.filter((f) => f.signer !== signer.key),
    }));
    p.focus('add-signer');
  };
  return (
    <fieldset className="card prepare-signer" data-testid={`signer-${index}`}>
      <legend className="section-title">{t.signerN(index + 1)}</legend>
      <TextField
        box="field"
        id={ids.signer(signer.key, 'name')}
        label={t.signerName}
        value={signer.name}
        maxLength={200}
        autoComplete="off"
        error={p.errors[ids.signer(signer.key, 'name')]}
        onChange={(e) => set('name', e.target.value)}
      />
      <SelectField
        box="field"
        id={ids.signer(signer.key, 'authority')}
        label={t.signerAuthority}
        value={signer.authority}
        error={p.errors[ids.signer(signer.key, 'authority')]}
        onChange={(e) => set('authority', e.target.value)}
      >
        {AUTHORITIES.map((a) => (
          <option key={a} value={a}>
            {t.authorities[a]}
          </option>
        ))}
      </SelectField>
      <TextField
        box="field"
        id={ids.signer(signer.key, 'data')}
        label={t.signerData(signer.authority)}
        hint={t.dataHint[dataKind(signer.authority)]}
        value={signer.data}
        maxLength={254}
        autoComplete="off"
        inputMode={dataKind(signer.authority) === 'phone' ? 'tel' : dataKind(signer.authority) === 'email' ? 'email' : 'text'}
        error={p.errors[ids.signer(signer.key, 'data')]}
        onChange={(e) => set('data', e.target.value)}
      />
      <div className="actions">
        <button type="button" className="button button-danger-outline button-small" onClick={remove}>
          {t.removeSigner(label)}
        </button>
      </div>
    </fieldset>
  );
}
