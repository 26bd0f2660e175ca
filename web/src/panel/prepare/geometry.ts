// Where a box lies on a page as the person sees it, and where it lies in the PDF. The API's rect is
// in points of the page's unrotated user space from the CropBox's lower-left corner (docs/api.md
// "Geometry of stickers"); the screen shows the CropBox turned clockwise by /Rotate, y downwards.
// The editor keeps the rect (what is sent and saved) and works in fractions of the page as shown,
// so a drag, a key press and a resize mean the same on any zoom, screen or rotation.

/** A rect of the API: PDF points, lx < tx, ly < ty. */
export interface Rect {
  lx: number;
  ly: number;
  tx: number;
  ty: number;
}

/** A page's CropBox size in points (unrotated) and its /Rotate, as pdf.js reports them. */
export interface PageGeometry {
  width: number;
  height: number;
  rotation: number;
}

/**
 * A page's geometry from what pdf.js says of it: `view` is the CropBox (clipped to the MediaBox) in
 * user space units, which a page with /UserUnit (PDF 1.6) counts in that many points; the API
 * measures in points, and the service divides by /UserUnit when it writes the box (docs/api.md).
 */
export function pageGeometry(p: { view: number[]; rotate: number; userUnit?: number }): PageGeometry {
  const unit = p.userUnit || 1;
  const [x0, y0, x1, y1] = p.view;
  return { width: (x1 - x0) * unit, height: (y1 - y0) * unit, rotation: p.rotate };
}

/** A box on the page as shown: fractions (0..1) of the shown page's width and height from its top-left corner. */
export interface Shown {
  left: number;
  top: number;
  width: number;
  height: number;
}

export type Corner = 'nw' | 'ne' | 'sw' | 'se';

const turn = (rotation: number) => ((rotation % 360) + 360) % 360;

/** The page's size as shown, in points: a page turned a quarter shows its height across. */
export function shownSize(g: PageGeometry): { width: number; height: number } {
  return turn(g.rotation) % 180 === 0 ? { width: g.width, height: g.height } : { width: g.height, height: g.width };
}

export function rectToShown(r: Rect, g: PageGeometry): Shown {
  const W = g.width;
  const H = g.height;
  switch (turn(g.rotation)) {
    case 90:
      return { left: r.ly / H, top: r.lx / W, width: (r.ty - r.ly) / H, height: (r.tx - r.lx) / W };
    case 180:
      return { left: (W - r.tx) / W, top: r.ly / H, width: (r.tx - r.lx) / W, height: (r.ty - r.ly) / H };
    case 270:
      return { left: (H - r.ty) / H, top: (W - r.tx) / W, width: (r.ty - r.ly) / H, height: (r.tx - r.lx) / W };
    default:
      return { left: r.lx / W, top: (H - r.ty) / H, width: (r.tx - r.lx) / W, height: (r.ty - r.ly) / H };
  }
}

/**
 * The rect of a box shown at `s`, to a hundredth of a point, inside the page: the service refuses a
 * box beyond the CropBox (0.01 pt of tolerance), so a box dragged to the edge stays on it.
 */
export function shownToRect(s: Shown, g: PageGeometry): Rect {
  const W = g.width;
  const H = g.height;
  const right = s.left + s.width;
  const bottom = s.top + s.height;
  let r: Rect;
  switch (turn(g.rotation)) {
    case 90:
      r = { lx: s.top * W, tx: bottom * W, ly: s.left * H, ty: right * H };
      break;
    case 180:
      r = { lx: W - right * W, tx: W - s.left * W, ly: s.top * H, ty: bottom * H };
      break;
    case 270:
      r = { lx: W - bottom * W, tx: W - s.top * W, ly: H - right * H, ty: H - s.left * H };
      break;
    default:
      r = { lx: s.left * W, tx: right * W, ly: H - bottom * H, ty: H - s.top * H };
  }
  const maxX = Math.floor(W * 100) / 100;
  const maxY = Math.floor(H * 100) / 100;
  const fit = (v: number, max: number) => Math.min(Math.max(Math.round(v * 100) / 100, 0), max);
  return { lx: fit(r.lx, maxX), ly: fit(r.ly, maxY), tx: fit(r.tx, maxX), ty: fit(r.ty, maxY) };
}

const clamp = (v: number, lo: number, hi: number) => Math.min(Math.max(v, lo), hi);

/** The box moved by (dx, dy) fractions of the shown page, kept inside it. */
export function moveShown(s: Shown, dx: number, dy: number): Shown {
  return { ...s, left: clamp(s.left + dx, 0, 1 - s.width), top: clamp(s.top + dy, 0, 1 - s.height) };
}

/**
 * The box with one corner dragged by (dx, dy), the opposite corner fixed; never smaller than
 * (minW, minH) nor beyond the page.
 */
export function resizeShown(s: Shown, corner: Corner, dx: number, dy: number, minW: number, minH: number): Shown {
  let left = s.left;
  let top = s.top;
  let right = s.left + s.width;
  let bottom = s.top + s.height;
  if (corner === 'nw' || corner === 'sw') {
    left = clamp(left + dx, 0, right - minW);
  } else {
    right = clamp(right + dx, left + minW, 1);
  }
  if (corner === 'nw' || corner === 'ne') {
    top = clamp(top + dy, 0, bottom - minH);
  } else {
    bottom = clamp(bottom + dy, top + minH, 1);
  }
  return { left, top, width: right - left, height: bottom - top };
}

/** A new box of `w` × `h` points (as shown) near the top-left of the page, moved down by `offset` points per box already there. */
export function newBoxRect(g: PageGeometry, w: number, h: number, offset: number): Rect {
  const size = shownSize(g);
  const fw = Math.min(w / size.width, 1);
  const fh = Math.min(h / size.height, 1);
  const s = moveShown({ left: 0.1, top: 0.1, width: fw, height: fh }, 0, offset / size.height);
  return shownToRect(s, g);
}
