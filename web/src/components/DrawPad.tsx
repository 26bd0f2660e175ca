// A canvas to draw a signature on with a mouse, a finger or a pen (pointer events; the pen's
// pressure sets the line width). Each finished stroke reports the drawing as a PNG, cropped to
// the ink, on a transparent background.
import { useI18n } from '../i18n';
import { PAD_HEIGHT, useStrokes } from '../use-strokes';

export function DrawPad({ onChange, hasInk }: { onChange: (png: string | null) => void; hasInk: boolean }) {
  const { t } = useI18n();
  const { canvas, handlers, clear } = useStrokes(onChange);
  return (
    <div className="pad">
      <p className="hint" id="pad-hint">
        {t.padHint}
      </p>
      <canvas
        ref={canvas}
        className="pad-canvas"
        style={{ height: PAD_HEIGHT }}
        role="img"
        aria-label={t.padLabel}
        aria-describedby="pad-hint"
        data-testid="signature-pad"
        {...handlers}
      />
      <div className="pad-actions">
        <span className="pad-state">{hasInk ? t.padDrawn : t.padEmpty}</span>
        <button type="button" className="button button-secondary" onClick={clear} disabled={!hasInk}>
          {t.clear}
        </button>
      </div>
    </div>
  );
}
