// The strokes drawn on the signature pad (DrawPad.tsx): pointer events (a pen's pressure sets the
// line width), the canvas kept at the pad's size and redrawn, and the drawing reported as a PNG when
// a stroke ends or the pad is cleared.
import { useCallback, useEffect, useRef } from 'react';

export interface Point {
  x: number;
  y: number;
  w: number;
}

const INK = '#14206e';
export const PAD_HEIGHT = 160;

function drawStroke(ctx: CanvasRenderingContext2D, s: Point[], offsetX = 0, offsetY = 0) {
  ctx.strokeStyle = INK;
  ctx.fillStyle = INK;
  ctx.lineCap = 'round';
  ctx.lineJoin = 'round';
  if (s.length === 1) {
    ctx.beginPath();
    ctx.arc(s[0].x - offsetX, s[0].y - offsetY, s[0].w / 2, 0, Math.PI * 2);
    ctx.fill();
    return;
  }
  // Segment by segment, so the width can follow the pen's pressure; midpoints smooth the curve.
  for (let i = 1; i < s.length; i++) {
    const a = s[i - 1];
    const b = s[i];
    ctx.beginPath();
    ctx.lineWidth = (a.w + b.w) / 2;
    ctx.moveTo(a.x - offsetX, a.y - offsetY);
    ctx.lineTo(b.x - offsetX, b.y - offsetY);
    ctx.stroke();
  }
}

/** The strokes at twice their size, cropped to the ink with a margin: a small, sharp PNG. */
function exportPng(strokes: Point[][]): string | null {
  const points = strokes.flat();
  if (points.length === 0) {
    return null;
  }
  const margin = 6;
  const minX = Math.min(...points.map((p) => p.x)) - margin;
  const minY = Math.min(...points.map((p) => p.y)) - margin;
  const maxX = Math.max(...points.map((p) => p.x)) + margin;
  const maxY = Math.max(...points.map((p) => p.y)) + margin;
  const scale = 2;
  const out = document.createElement('canvas');
  out.width = Math.max(1, Math.ceil((maxX - minX) * scale));
  out.height = Math.max(1, Math.ceil((maxY - minY) * scale));
  const ctx = out.getContext('2d');
  if (!ctx) {
    return null;
  }
  ctx.scale(scale, scale);
  for (const s of strokes) {
    drawStroke(ctx, s, minX, minY);
  }
  return out.toDataURL('image/png');
}

/** The canvas as wide as the pad and PAD_HEIGHT high, at the screen's pixel density; redrawn on resize. */
function useCanvasRedraw(canvas: React.RefObject<HTMLCanvasElement | null>, strokes: React.RefObject<Point[][]>) {
  const redraw = useCallback(() => {
    const el = canvas.current;
    const ctx = el?.getContext('2d');
    if (!el || !ctx) {
      return;
    }
    const dpr = window.devicePixelRatio || 1;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, el.width, el.height);
    for (const s of strokes.current) {
      drawStroke(ctx, s);
    }
  }, [canvas, strokes]);

  useEffect(() => {
    const el = canvas.current;
    if (!el) {
      return;
    }
    const ro = new ResizeObserver(() => {
      const dpr = window.devicePixelRatio || 1;
      el.width = Math.max(1, Math.round(el.clientWidth * dpr));
      el.height = Math.round(PAD_HEIGHT * dpr);
      redraw();
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, [canvas, redraw]);
  return redraw;
}

export function useStrokes(onChange: (png: string | null) => void) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const strokes = useRef<Point[][]>([]);
  const current = useRef<Point[] | null>(null);
  const redraw = useCanvasRedraw(canvas, strokes);

  const pointOf = (e: React.PointerEvent<HTMLCanvasElement> | PointerEvent): Point => {
    const r = canvas.current!.getBoundingClientRect();
    // Mouse and touch report 0.5 (or 0) without real pressure; a pen reports its own.
    const pressure = e.pointerType === 'pen' && e.pressure > 0 ? e.pressure : 0.5;
    return { x: e.clientX - r.left, y: e.clientY - r.top, w: 1.2 + pressure * 2.6 };
  };

  const onPointerDown = (e: React.PointerEvent<HTMLCanvasElement>) => {
    if (e.pointerType === 'mouse' && e.button !== 0) {
      return;
    }
    e.preventDefault();
    e.currentTarget.setPointerCapture(e.pointerId);
    current.current = [pointOf(e)];
    strokes.current.push(current.current);
    redraw();
  };

  const onPointerMove = (e: React.PointerEvent<HTMLCanvasElement>) => {
    const stroke = current.current;
    if (!stroke) {
      return;
    }
    e.preventDefault();
    const events = e.nativeEvent.getCoalescedEvents?.() ?? [];
    for (const ev of events.length > 0 ? events : [e.nativeEvent]) {
      stroke.push(pointOf(ev));
    }
    redraw();
  };

  const finish = () => {
    if (!current.current) {
      return;
    }
    current.current = null;
    onChange(exportPng(strokes.current));
  };

  const clear = () => {
    strokes.current = [];
    current.current = null;
    redraw();
    onChange(null);
  };

  const handlers = { onPointerDown, onPointerMove, onPointerUp: finish, onPointerCancel: finish, onLostPointerCapture: finish };
  return { canvas, handlers, clear };
}
