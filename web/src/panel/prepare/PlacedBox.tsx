// One signer's box over a page: dragged to move it, a corner dragged to resize it (pointer events,
// so a mouse, a finger and a pen alike; the page does not scroll under a finger that drags), and
// from the keyboard once focused: the arrow keys move it, shift and the arrows resize it, Delete
// removes it. A drag is shown as it goes and saved once, when it ends; a key press is saved at once.
import { type KeyboardEvent, type PointerEvent, type RefObject, useRef, useState } from 'react';
import {
  type Corner,
  moveShown,
  type PageGeometry,
  type Rect,
  rectToShown,
  resizeShown,
  type Shown,
  shownSize,
  shownToRect,
} from './geometry';

/** Points a key press moves or resizes a box by. */
export const KEY_STEP = 5;
/** The smallest box, in points: a checkbox's. */
const MIN_W = 10;
const MIN_H = 10;

const CORNERS: Corner[] = ['nw', 'ne', 'sw', 'se'];
const ARROWS: Record<string, [number, number]> = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

interface BoxProps {
  id: string;
  rect: Rect;
  geometry: PageGeometry;
  /** What the box shows: who signs or fills it (and the field's type). */
  label: string;
  /** What a screen reader says of it: what it is, whose, on which page. */
  name: string;
  /** A field a signer fills, not a signature box: drawn dashed. */
  field?: boolean;
  colour: number;
  page: RefObject<HTMLDivElement | null>;
  describedBy: string;
  invalid: boolean;
  onChange: (rect: Rect) => void;
  onDelete: () => void;
}

interface Drag {
  mode: 'move' | Corner;
  x: number;
  y: number;
  start: Shown;
  w: number;
  h: number;
}

export function PlacedBox({ id, rect, geometry, label, name, field, colour, page, describedBy, invalid, onChange, onDelete }: BoxProps) {
  const [live, setLive] = useState<Shown | null>(null);
  const drag = useRef<Drag | null>(null);
  const el = useRef<HTMLButtonElement>(null);
  const size = shownSize(geometry);
  const min = [MIN_W / size.width, MIN_H / size.height] as const;
  const shown = live ?? rectToShown(rect, geometry);

  const at = (d: Drag, e: PointerEvent) => {
    const dx = (e.clientX - d.x) / d.w;
    const dy = (e.clientY - d.y) / d.h;
    return d.mode === 'move' ? moveShown(d.start, dx, dy) : resizeShown(d.start, d.mode, dx, dy, min[0], min[1]);
  };
  const down = (mode: Drag['mode']) => (e: PointerEvent<HTMLElement>) => {
    const box = page.current?.getBoundingClientRect();
    if (e.button !== 0 || !box) {
      return;
    }
    e.preventDefault();
    e.stopPropagation();
    e.currentTarget.setPointerCapture(e.pointerId);
    el.current?.focus();
    drag.current = { mode, x: e.clientX, y: e.clientY, start: rectToShown(rect, geometry), w: box.width, h: box.height };
  };
  const move = (e: PointerEvent) => {
    if (drag.current) {
      setLive(at(drag.current, e));
    }
  };
  const up = (e: PointerEvent) => {
    const d = drag.current;
    if (!d) {
      return;
    }
    drag.current = null;
    setLive(null);
    if (e.clientX !== d.x || e.clientY !== d.y) {
      onChange(shownToRect(at(d, e), geometry));
    }
  };
  const cancel = () => {
    drag.current = null;
    setLive(null);
  };
  const key = (e: KeyboardEvent) => {
    const arrow = ARROWS[e.key];
    if (arrow) {
      e.preventDefault();
      const dx = (arrow[0] * KEY_STEP) / size.width;
      const dy = (arrow[1] * KEY_STEP) / size.height;
      const now = rectToShown(rect, geometry);
      onChange(shownToRect(e.shiftKey ? resizeShown(now, 'se', dx, dy, min[0], min[1]) : moveShown(now, dx, dy), geometry));
    } else if (e.key === 'Delete' || e.key === 'Backspace') {
      e.preventDefault();
      onDelete();
    }
  };

  return (
    <button
      ref={el}
      id={id}
      type="button"
      className={`placed-box${field ? ' placed-field' : ''} signer-colour-${colour % 6}`}
      style={{ left: `${shown.left * 100}%`, top: `${shown.top * 100}%`, width: `${shown.width * 100}%`, height: `${shown.height * 100}%` }}
      aria-label={name}
      aria-describedby={describedBy}
      aria-invalid={invalid ? true : undefined}
      data-rect={JSON.stringify(rect)}
      data-testid="placed-box"
      onPointerDown={down('move')}
      onPointerMove={move}
      onPointerUp={up}
      onPointerCancel={cancel}
      onKeyDown={key}
    >
      <span className="placed-label" aria-hidden="true">
        {label}
      </span>
      {CORNERS.map((c) => (
        <span key={c} className={`placed-handle placed-handle-${c}`} data-corner={c} aria-hidden="true" onPointerDown={down(c)} />
      ))}
    </button>
  );
}
