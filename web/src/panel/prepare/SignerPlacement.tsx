// One signer on the placement step: "Add box for <signer>", their boxes (each with its page and a
// way to remove it), and the fields they fill, added by type, each with its settings.
import { useState } from 'react';
import { SelectField } from '../fields';
import { usePanelI18n } from '../panel-i18n';
import { FieldSettings } from './FieldSettings';
import { ids } from './field-errors';
import { FIELD_TYPES, type FieldType, type PrepBox, type PrepField, type PrepSigner } from './state';
import type { Prepare } from './use-prepare';

interface Props {
  p: Prepare;
  signer: PrepSigner;
  who: { name: string; colour: number };
  ready: boolean;
  onAddBox: () => void;
  onAddField: (type: FieldType) => void;
  onRemoveBox: (box: PrepBox) => void;
  onRemoveField: (field: PrepField) => void;
}

export function SignerPlacement({ p, signer, who, ready, onAddBox, onAddField, onRemoveBox, onRemoveField }: Props) {
  const { t } = usePanelI18n();
  const s = p.state!;
  const [type, setType] = useState<FieldType>('text');
  const boxes = s.boxes.filter((b) => b.signer === signer.key);
  const fields = s.fields.filter((f) => f.signer === signer.key);
  const problem = p.errors[ids.signerBoxes(signer.key)];
  return (
    <li className={`card signer-colour-${who.colour % 6}`}>
      <button
        type="button"
        id={`add-box-${signer.key}`}
        className="button button-secondary button-small"
        onClick={onAddBox}
        disabled={!ready}
        aria-describedby={problem ? `${ids.signerBoxes(signer.key)}-error` : undefined}
      >
        <span className="signer-swatch" aria-hidden="true" />
        {t.addBox(who.name)}
      </button>
      {problem && (
        <span id={`${ids.signerBoxes(signer.key)}-error`} className="field-error" role="alert">
          {problem}
        </span>
      )}
      {boxes.length > 0 && (
        <ul className="prepare-box-list" aria-label={t.boxesOf(who.name)}>
          {boxes.map((b) => (
            <li key={b.key}>
              {t.boxOnPage(b.page + 1)}{' '}
              <button type="button" className="link-button" onClick={() => onRemoveBox(b)}>
                {t.removeBox(who.name, b.page + 1)}
              </button>
              {p.errors[ids.box(b.key)] && (
                <span id={`${ids.box(b.key)}-error`} className="field-error" role="alert">
                  {p.errors[ids.box(b.key)]}
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
      <div className="prepare-add-field">
        <SelectField
          id={`field-type-${signer.key}`}
          label={t.fieldType}
          value={type}
          onChange={(e) => setType(e.target.value as FieldType)}
        >
          {FIELD_TYPES.map((x) => (
            <option key={x} value={x}>
              {t.fieldTypes[x]}
            </option>
          ))}
        </SelectField>
        <button
          type="button"
          id={`add-field-${signer.key}`}
          className="button button-secondary button-small"
          onClick={() => onAddField(type)}
          disabled={!ready}
        >
          {t.addField(who.name)}
        </button>
      </div>
      {fields.length > 0 && (
        <ul className="prepare-box-list" aria-label={t.fieldsOf(who.name)}>
          {fields.map((f) => (
            <FieldSettings key={f.key} p={p} field={f} who={who.name} onRemove={() => onRemoveField(f)} />
          ))}
        </ul>
      )}
    </li>
  );
}
