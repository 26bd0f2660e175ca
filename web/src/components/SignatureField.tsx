// How the signer makes a signature: draw it on the pad, or type it (the keyboard alternative to
// the pad). Reports the signature of the chosen tab, or null while there is none.
import { useEffect, useRef, useState } from 'react';
import type { Signature } from '../api';
import { useI18n } from '../i18n';
import { DrawPad } from './DrawPad';

type Mode = 'draw' | 'type';
const MODES: Mode[] = ['draw', 'type'];
export const TYPED_MAX = 100;

export function SignatureField({ onChange, disabled }: { onChange: (s: Signature | null) => void; disabled?: boolean }) {
  const { t } = useI18n();
  const [mode, setMode] = useState<Mode>('draw');
  const [image, setImage] = useState<string | null>(null);
  const [text, setText] = useState('');
  const tabs = useRef<Record<Mode, HTMLButtonElement | null>>({ draw: null, type: null });

  useEffect(() => {
    const typed = text.trim();
    if (mode === 'draw') {
      onChange(image ? { type: 'drawn', image } : null);
    } else {
      onChange(typed ? { type: 'typed', text: typed } : null);
    }
  }, [mode, image, text, onChange]);

  // Arrow keys move between the tabs, as in the ARIA tabs pattern; both tabs are also in the Tab
  // order, and Enter or Space chooses one.
  const onTabKey = (e: React.KeyboardEvent) => {
    const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) {
      return;
    }
    e.preventDefault();
    const next = MODES[(MODES.indexOf(mode) + step + MODES.length) % MODES.length];
    setMode(next);
    tabs.current[next]?.focus();
  };

  const label = { draw: t.tabDraw, type: t.tabType };
  return (
    <fieldset className="signature-field" disabled={disabled}>
      <legend className="section-title">{t.signHeading}</legend>
      <div role="tablist" aria-label={t.tabsLabel} className="tabs">
        {MODES.map((m) => (
          <button
            key={m}
            ref={(el) => {
              tabs.current[m] = el;
            }}
            type="button"
            role="tab"
            id={`tab-${m}`}
            aria-selected={mode === m}
            aria-controls={`panel-${m}`}
            className={mode === m ? 'tab tab-active' : 'tab'}
            onClick={() => setMode(m)}
            onKeyDown={onTabKey}
          >
            {label[m]}
          </button>
        ))}
      </div>
      <div role="tabpanel" id="panel-draw" aria-labelledby="tab-draw" hidden={mode !== 'draw'} className="tabpanel">
        <DrawPad onChange={setImage} hasInk={image !== null} />
      </div>
      <div role="tabpanel" id="panel-type" aria-labelledby="tab-type" hidden={mode !== 'type'} className="tabpanel">
        <label htmlFor="typed-signature" className="field-label">
          {t.typedLabel}
        </label>
        <input
          id="typed-signature"
          className="text-input"
          type="text"
          autoComplete="name"
          maxLength={TYPED_MAX}
          value={text}
          onChange={(e) => setText(e.target.value)}
          aria-describedby="typed-hint"
        />
        <p className="hint" id="typed-hint">
          {t.typedHint}
        </p>
        <div className="typed-preview" aria-label={t.typedPreview} role="img" hidden={!text.trim()}>
          {text.trim()}
        </div>
      </div>
    </fieldset>
  );
}
