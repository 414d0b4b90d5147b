// What is drawn over the drawing on a 2D canvas: the cursor (crosshair and pick box), the grid,
// the object-snap marker, the selection window, rubber bands of the tool under way.

export type SnapKind = 'endpoint' | 'midpoint' | 'center' | 'quadrant' | 'intersection' | 'perpendicular' | 'nearest' | 'node' | 'insertion' | 'tangent' | 'extension';

export interface OverlayState {
  cursor: [number, number] | null;
  pickBox: number;
  crosshair: boolean;
  snap: { at: [number, number]; kind: SnapKind } | null;
  /** Selection window in screen px: from, to; crossing when dragged right to left. */
  window: { from: [number, number]; to: [number, number] } | null;
  /** Rubber-band segments in screen px. */
  bands: [number, number, number, number][];
  grid: { spacing: number; origin: [number, number] } | null;
  dark: boolean;
  /** Grips of the selection (drawing units), the hot one (being dragged) drawn red. */
  grips: [number, number][];
  hotGrip: [number, number] | null;
  /**
   * Polar or object-snap tracking: its lines (screen px, drawn dotted across the view), the
   * acquired points (small crosses) and the tooltip ("Polar: 12.5 < 90°").
   */
  track: { lines: [number, number, number, number][]; acquired: [number, number][]; label: string | null } | null;
  /** A note shown next to the cursor until a time (performance.now()). */
  note: { text: string; err: boolean; until: number } | null;
}

/** Half the size of a grip square in CSS pixels (AutoCAD's GRIPSIZE). */
export const GRIP_PX = 4;

export function drawOverlay(c: HTMLCanvasElement, s: OverlayState, dpr: number, worldToScreen: (x: number, y: number) => [number, number]): void {
  const w = c.clientWidth, h = c.clientHeight;
  if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
    c.width = Math.round(w * dpr);
    c.height = Math.round(h * dpr);
  }
  const g = c.getContext('2d')!;
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, w, h);
  const ink = s.dark ? 'rgba(255,255,255,0.85)' : 'rgba(0,0,0,0.85)';
  if (s.grid) {
    const [x0, y0] = worldToScreen(s.grid.origin[0], s.grid.origin[1]);
    const [x1] = worldToScreen(s.grid.origin[0] + s.grid.spacing, s.grid.origin[1]);
    const step = Math.abs(x1 - x0);
    if (step >= 8) {
      g.fillStyle = s.dark ? 'rgba(255,255,255,0.18)' : 'rgba(0,0,0,0.18)';
      const sx = ((x0 % step) + step) % step;
      const sy = ((y0 % step) + step) % step;
      for (let x = sx; x < w; x += step) for (let y = sy; y < h; y += step) g.fillRect(x - 0.5, y - 0.5, 1.5, 1.5);
    }
  }
  if (s.window) {
    const [ax, ay] = s.window.from;
    const [bx, by] = s.window.to;
    const crossing = bx < ax;
    g.fillStyle = crossing ? 'rgba(60,200,90,0.15)' : 'rgba(60,120,255,0.15)';
    g.strokeStyle = crossing ? 'rgb(60,200,90)' : 'rgb(80,140,255)';
    g.setLineDash(crossing ? [5, 4] : []);
    g.fillRect(Math.min(ax, bx), Math.min(ay, by), Math.abs(bx - ax), Math.abs(by - ay));
    g.strokeRect(Math.min(ax, bx) + 0.5, Math.min(ay, by) + 0.5, Math.abs(bx - ax), Math.abs(by - ay));
    g.setLineDash([]);
  }
  if (s.bands.length) {
    g.strokeStyle = ink;
    g.setLineDash([6, 4]);
    g.beginPath();
    for (const [x0, y0, x1, y1] of s.bands) {
      g.moveTo(x0, y0);
      g.lineTo(x1, y1);
    }
    g.stroke();
    g.setLineDash([]);
  }
  if (s.track) {
    g.strokeStyle = '#38d45c';
    g.setLineDash([2, 4]);
    g.beginPath();
    for (const [x0, y0, x1, y1] of s.track.lines) {
      // carried on past the tracked point to the edge of the view, as AutoCAD draws it
      const dx = x1 - x0, dy = y1 - y0, len = Math.hypot(dx, dy) || 1;
      const far = Math.hypot(w, h);
      g.moveTo(x0, y0);
      g.lineTo(x1 + (dx / len) * far, y1 + (dy / len) * far);
    }
    g.stroke();
    g.setLineDash([]);
    for (const [x, y] of s.track.acquired) {
      g.beginPath();
      g.moveTo(x - 4, y);
      g.lineTo(x + 4, y);
      g.moveTo(x, y - 4);
      g.lineTo(x, y + 4);
      g.stroke();
    }
    if (s.track.label && s.cursor) tooltip(g, s.track.label, s.cursor[0] + 14, s.cursor[1] - 30, w, h, 'rgba(20,26,33,0.92)');
  }
  if (s.cursor && s.crosshair) {
    const [x, y] = s.cursor;
    g.strokeStyle = ink;
    g.lineWidth = 1;
    g.beginPath();
    g.moveTo(0, y + 0.5);
    g.lineTo(w, y + 0.5);
    g.moveTo(x + 0.5, 0);
    g.lineTo(x + 0.5, h);
    g.stroke();
    const r = s.pickBox;
    g.strokeRect(x - r + 0.5, y - r + 0.5, 2 * r, 2 * r);
  }
  if (s.grips.length) {
    // AutoCAD's grips: filled blue squares, the hot one red
    const r = GRIP_PX;
    g.fillStyle = '#2f6fff';
    g.strokeStyle = s.dark ? '#dfe5ec' : '#1c232b';
    for (const [gx, gy] of s.grips) {
      const [x, y] = worldToScreen(gx, gy);
      if (x < -r || y < -r || x > w + r || y > h + r) continue;
      g.fillRect(Math.round(x) - r, Math.round(y) - r, 2 * r, 2 * r);
      g.strokeRect(Math.round(x) - r + 0.5, Math.round(y) - r + 0.5, 2 * r - 1, 2 * r - 1);
    }
    if (s.hotGrip) {
      const [x, y] = worldToScreen(s.hotGrip[0], s.hotGrip[1]);
      g.fillStyle = '#ff3b30';
      g.fillRect(Math.round(x) - r, Math.round(y) - r, 2 * r, 2 * r);
    }
  }
  if (s.snap) {
    const [x, y] = worldToScreen(s.snap.at[0], s.snap.at[1]);
    drawMarker(g, s.snap.kind, x, y);
  }
  if (s.note && s.note.until > performance.now()) {
    // next to the cursor, kept inside the canvas
    const [cx, cy] = s.cursor ?? [w / 2, h / 2];
    tooltip(g, s.note.text, cx + 14, cy + 14, w, h, s.note.err ? 'rgba(120,20,20,0.92)' : 'rgba(20,26,33,0.92)');
  }
}

/** A one-line label at (x, y), kept inside the canvas. */
function tooltip(g: CanvasRenderingContext2D, text: string, x0: number, y0: number, w: number, h: number, fill: string): void {
  g.font = '12px system-ui, sans-serif';
  const tw = g.measureText(text).width + 10;
  const x = Math.max(2, Math.min(x0, w - tw - 2)), y = Math.max(2, Math.min(y0, h - 22));
  g.fillStyle = fill;
  g.fillRect(x, y, tw, 20);
  g.fillStyle = '#fff';
  g.fillText(text, x + 5, y + 14);
}

/** AutoCAD's snap markers: square endpoint, triangle midpoint, circle centre, diamond quadrant ... */
function drawMarker(g: CanvasRenderingContext2D, kind: SnapKind, x: number, y: number): void {
  const r = 6;
  g.strokeStyle = '#38d45c';
  g.lineWidth = 2;
  g.beginPath();
  switch (kind) {
    case 'endpoint':
      g.rect(x - r, y - r, 2 * r, 2 * r);
      break;
    case 'midpoint':
      g.moveTo(x, y - r);
      g.lineTo(x + r, y + r);
      g.lineTo(x - r, y + r);
      g.closePath();
      break;
    case 'center':
      g.arc(x, y, r, 0, Math.PI * 2);
      break;
    case 'quadrant':
      g.moveTo(x, y - r);
      g.lineTo(x + r, y);
      g.lineTo(x, y + r);
      g.lineTo(x - r, y);
      g.closePath();
      break;
    case 'intersection':
      g.moveTo(x - r, y - r);
      g.lineTo(x + r, y + r);
      g.moveTo(x + r, y - r);
      g.lineTo(x - r, y + r);
      break;
    case 'perpendicular':
      g.moveTo(x - r, y - r);
      g.lineTo(x - r, y + r);
      g.lineTo(x + r, y + r);
      g.moveTo(x - r, y);
      g.lineTo(x, y);
      g.lineTo(x, y + r);
      break;
    case 'tangent':
      g.arc(x, y, r * 0.8, 0, Math.PI * 2);
      g.moveTo(x - r, y - r);
      g.lineTo(x + r, y - r);
      break;
    case 'extension':
      g.moveTo(x - r, y);
      g.lineTo(x - r / 3, y);
      g.moveTo(x + r / 3, y);
      g.lineTo(x + r, y);
      break;
    case 'nearest':
      g.moveTo(x - r, y - r);
      g.lineTo(x + r, y - r);
      g.lineTo(x - r, y + r);
      g.lineTo(x + r, y + r);
      g.closePath();
      break;
    default:
      g.arc(x, y, r, 0, Math.PI * 2);
      g.moveTo(x - r, y);
      g.lineTo(x + r, y);
  }
  g.stroke();
  g.lineWidth = 1;
}
