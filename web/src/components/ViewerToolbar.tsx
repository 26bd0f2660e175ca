// The viewer's sticky toolbar (PdfViewer.tsx): zoom out, the zoom level, zoom in, fit width, the page
// in view, and "next box" through the signer's boxes.
import { useCallback, useState } from 'react';
import { useI18n } from '../i18n';

/** Zoom steps, as a multiple of the width that fits the screen (1). */
const ZOOMS = [0.5, 0.75, 1, 1.25, 1.5, 2, 3];

/**
 * "Next box (k of n)": k is the box the signer is at, the one this button last took them to (0
 * before the first). Each press scrolls the box after it into the middle of the screen and
 * focuses it (after the last, the first again). Boxes are found by their place in reading order
 * (data-box-index) within `scope`, or the whole page. A box many screens away is reached in one
 * jump: a smooth scroll would pass every page between and start drawing each.
 */
export function NextBoxButton({
  count,
  scope,
  className,
}: {
  count: number;
  scope?: React.RefObject<HTMLElement | null>;
  className?: string;
}) {
  const { t } = useI18n();
  // -1: no box reached yet. The label counts this one, not the one the next press goes to.
  const [at, setAt] = useState(-1);
  const go = useCallback(() => {
    const n = (at + 1) % count;
    const el = (scope?.current ?? document).querySelector<HTMLElement>(`[data-box-index="${n}"]`);
    if (el) {
      const far = Math.abs(el.getBoundingClientRect().top) > 2 * window.innerHeight;
      el.scrollIntoView({ block: 'center', behavior: far ? 'instant' : 'smooth' });
      el.focus({ preventScroll: true });
    }
    setAt(n);
  }, [at, count, scope]);
  return (
    <button type="button" className={className ?? 'tool-button tool-text tool-next'} onClick={go} data-testid="next-box">
      {t.nextBox(Math.min(at, count - 1) + 1, count)}
    </button>
  );
}

export interface ViewerToolbarProps {
  zoom: number;
  onZoom: (zoom: number) => void;
  /** The page in view (0-based) and how many there are. */
  current: number;
  total: number;
  /** How many of the signer's boxes "next box" goes through; none: no button. */
  boxes: number;
  pages: React.RefObject<HTMLElement | null>;
}

export function ViewerToolbar({ zoom, onZoom, current, total, boxes, pages }: ViewerToolbarProps) {
  const { t } = useI18n();
  const step = (dir: 1 | -1) => {
    const i = ZOOMS.indexOf(zoom);
    onZoom(ZOOMS[Math.min(ZOOMS.length - 1, Math.max(0, i + dir))]);
  };
  return (
    <div className="viewer-toolbar" role="toolbar" aria-label={t.toolbarLabel} data-testid="viewer-toolbar">
      <div className="zoom-controls">
        <button
          type="button"
          className="tool-button"
          onClick={() => step(-1)}
          disabled={zoom === ZOOMS[0]}
          aria-label={t.zoomOut}
          title={t.zoomOut}
          data-testid="zoom-out"
        >
          −
        </button>
        <output className="zoom-level" aria-live="polite" aria-label={t.zoomLevel(Math.round(zoom * 100))} data-testid="zoom-level">
          {Math.round(zoom * 100)} %
        </output>
        <button
          type="button"
          className="tool-button"
          onClick={() => step(1)}
          disabled={zoom === ZOOMS[ZOOMS.length - 1]}
          aria-label={t.zoomIn}
          title={t.zoomIn}
          data-testid="zoom-in"
        >
          +
        </button>
        <button type="button" className="tool-button tool-text" onClick={() => onZoom(1)} aria-pressed={zoom === 1} data-testid="zoom-fit">
          {t.fitWidth}
        </button>
      </div>
      <span className="page-indicator" data-testid="page-indicator">
        {t.pageLabel(Math.min(current, total - 1) + 1, total)}
      </span>
      {boxes > 0 && <NextBoxButton count={boxes} scope={pages} />}
    </div>
  );
}
