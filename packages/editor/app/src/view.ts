// The camera and the WebGL2 canvas: drawing units <-> screen pixels, zoom about the cursor, pan,
// fit, and one frame per animation frame when something changed.
import { attr, programs, type Programs } from './gl.js';
import type { Scene, Viewer } from './scene.js';
import type { Atlas } from './text.js';

export const DARK_BG = 0x212830;
export const LIGHT_BG = 0xffffff;

/** A screen rectangle in device pixels from the bottom left: x0, y0, x1, y1. */
type Rect = [number, number, number, number];

/** How much of the screen the cached picture adds on every side. */
const MARGIN = 0.25;

interface ViewCache {
  fbo: WebGLFramebuffer;
  tex: WebGLTexture;
  stencil: WebGLRenderbuffer;
  /** Size in device pixels. */
  w: number;
  h: number;
  /** The view it was drawn at: centre (drawing units) and device pixels per unit. */
  cx: number;
  cy: number;
  scale: number;
  valid: boolean;
  scene: Scene | null;
}

export interface Stats {
  frames: number;
  /** Renders of the drawing into the cached picture (whole, or the changed boxes). */
  renders: number;
  /** Frames that placed the picture again only where the hover changed (nothing else had). */
  hoverFrames: number;
  lastFrameMs: number;
  /** Time of the last frame (performance.now()). */
  lastFrameAt: number;
}

export class View {
  readonly gl: WebGL2RenderingContext;
  private readonly progs: Programs;
  private readonly atlasTex: WebGLTexture;
  private readonly quad: WebGLBuffer;
  scene: Scene | null = null;
  /** View centre (drawing units) and scale (CSS pixels per drawing unit). */
  cx = 0;
  cy = 0;
  scale = 1;
  width = 1;
  height = 1;
  dpr = 1;
  lineweights = false;
  background = DARK_BG;
  readonly stats: Stats = { frames: 0, renders: 0, hoverFrames: 0, lastFrameMs: 0, lastFrameAt: 0 };
  private pending = false;
  /** Something but the hover changed since the last frame (it places the whole picture again). */
  private full = true;
  /** The last frame: its scene, where it placed the picture, and the hover's screen rectangles. */
  private last: { scene: Scene; key: string; hover: Rect[] } | null = null;
  private cache: ViewCache | null = null;
  private settleTimer: ReturnType<typeof setTimeout> | null = null;
  /** Set when the next frame must draw the whole drawing again (the view settled after a zoom). */
  private settled = false;
  /** Drawn after the scene (overlay canvas: cursor, snaps, windows, rubber bands). */
  afterFrame: (() => void) | null = null;
  /** Called when the view has not moved for a moment (after a pan or zoom). */
  onSettle: (() => void) | null = null;
  private moveTimer: ReturnType<typeof setTimeout> | null = null;

  /** Called on every change of the view (the app picks the scene that covers it). */
  onMove: (() => void) | null = null;

  private moved(): void {
    this.onMove?.();
    if (this.moveTimer) clearTimeout(this.moveTimer);
    this.moveTimer = setTimeout(() => {
      this.moveTimer = null;
      this.onSettle?.();
    }, 200);
  }

  constructor(readonly canvas: HTMLCanvasElement, private readonly atlas: Atlas) {
    const gl = canvas.getContext('webgl2', { antialias: false, stencil: true, preserveDrawingBuffer: true, alpha: false });
    if (!gl) throw new Error('this browser has no WebGL2');
    this.gl = gl;
    this.progs = programs(gl);
    this.atlasTex = gl.createTexture()!;
    this.quad = gl.createBuffer()!;
    gl.bindBuffer(gl.ARRAY_BUFFER, this.quad);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([0, 0, 1, 0, 0, 1, 1, 1]), gl.STATIC_DRAW);
    new ResizeObserver(() => this.resize()).observe(canvas);
    this.resize();
    this.warmUp();
  }

  /**
   * Draws one of everything into a scratch target while the page waits for its first display
   * list: SwiftShader compiles a program's pipeline on its first draw, which would otherwise
   * delay the first frame.
   */
  private warmUp(): void {
    const gl = this.gl;
    const p = this.progs;
    const buf = gl.createBuffer()!;
    gl.bindBuffer(gl.ARRAY_BUFFER, buf);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(24), gl.STATIC_DRAW);
    const tex = gl.createTexture()!;
    gl.bindTexture(gl.TEXTURE_2D, tex);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, 2, 2, 0, gl.RGBA, gl.UNSIGNED_BYTE, null);
    const fbo = gl.createFramebuffer()!;
    gl.bindFramebuffer(gl.FRAMEBUFFER, fbo);
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0);
    gl.viewport(0, 0, 2, 2);
    for (const [prog, mode, n] of [[p.seg, gl.LINES, 2], [p.tri, gl.TRIANGLES, 3], [p.glyph, gl.TRIANGLES, 3], [p.blit, gl.TRIANGLE_STRIP, 4], [p.image, gl.TRIANGLE_STRIP, 4], [p.hover, gl.LINES, 2]] as const) {
      gl.useProgram(prog.prog);
      for (const loc of Object.values(prog.loc)) if (loc >= 0) attr(gl, loc, buf, 1, gl.FLOAT, false, 0, 0, 0);
      gl.drawArrays(mode, 0, n);
      for (const loc of Object.values(prog.loc)) if (loc >= 0) gl.disableVertexAttribArray(loc);
    }
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
    gl.deleteFramebuffer(fbo);
    gl.deleteTexture(tex);
    gl.deleteBuffer(buf);
  }

  resize(): void {
    this.dpr = window.devicePixelRatio || 1;
    const r = this.canvas.getBoundingClientRect();
    this.width = Math.max(1, r.width);
    this.height = Math.max(1, r.height);
    this.canvas.width = Math.round(this.width * this.dpr);
    this.canvas.height = Math.round(this.height * this.dpr);
    this.invalidate();
  }

  /** Screen (CSS px from the canvas's top left) to drawing units. */
  toWorld(sx: number, sy: number): [number, number] {
    return [this.cx + (sx - this.width / 2) / this.scale, this.cy - (sy - this.height / 2) / this.scale];
  }

  toScreen(wx: number, wy: number): [number, number] {
    return [(wx - this.cx) * this.scale + this.width / 2, this.height / 2 - (wy - this.cy) * this.scale];
  }

  /** Shows a box (drawing units) with a margin (fraction of its size). */
  fit(b: [number, number, number, number] | null, margin = 0.05): void {
    if (!b) {
      this.cx = 0;
      this.cy = 0;
      this.scale = Math.min(this.width, this.height) / 100;
    } else {
      const w = Math.max(b[2] - b[0], 1e-9) * (1 + 2 * margin);
      const h = Math.max(b[3] - b[1], 1e-9) * (1 + 2 * margin);
      this.cx = (b[0] + b[2]) / 2;
      this.cy = (b[1] + b[3]) / 2;
      this.scale = Math.min(this.width / w, this.height / h);
    }
    this.moved();
    this.invalidate();
  }

  /** Zooms by `factor` keeping the drawing point under (sx, sy) in place. */
  zoomAt(sx: number, sy: number, factor: number): void {
    const [wx, wy] = this.toWorld(sx, sy);
    this.scale = Math.min(Math.max(this.scale * factor, 1e-12), 1e12);
    this.cx = wx - (sx - this.width / 2) / this.scale;
    this.cy = wy + (sy - this.height / 2) / this.scale;
    this.moved();
    this.invalidate();
  }

  panBy(dxPx: number, dyPx: number): void {
    this.cx -= dxPx / this.scale;
    this.cy += dyPx / this.scale;
    this.moved();
    this.invalidate();
  }

  /** Asks for a frame (at most one per animation frame). */
  invalidate(): void {
    this.full = true;
    this.request();
  }

  /**
   * Asks for a frame for a change of the hovered entities only: unless something else changed
   * too, it places the cached picture again only over the boxes of the hover before and after
   * and draws the hovered entities there (Scene.drawHover); the rest of the screen stays (the
   * context keeps its pixels between frames: preserveDrawingBuffer).
   */
  invalidateHover(): void {
    this.request();
  }

  private request(): void {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.render();
    });
  }

  private uploadAtlas(): void {
    const gl = this.gl;
    gl.bindTexture(gl.TEXTURE_2D, this.atlasTex);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, this.atlas.image);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
    this.atlas.dirty = false;
  }

  /** Forgets the cached picture (a new scene, another background): the next frame draws anew. */
  dropCache(): void {
    if (this.cache) this.cache.valid = false;
  }

  /**
   * One frame. The drawing is rendered into an offscreen picture (the view cache) a quarter of the
   * screen larger on every side; frames while panning only place that picture, frames while
   * zooming show it scaled until the view settles (150 ms), and a change redraws only the tiles
   * it touches. A full render happens on the first frame, after a zoom settles, when a pan leaves
   * the cached area, and when everything changed (layers, background).
   */
  render(): void {
    const t0 = performance.now();
    const gl = this.gl;
    if (this.atlas.dirty) this.uploadAtlas();
    const bg = this.scene?.background ?? this.background;
    const scene = this.scene;
    if (scene) {
      const c = this.ensureCache();
      const scale = this.scale * this.dpr;
      const sameScale = c.valid && Math.abs(c.scale - scale) <= scale * 1e-9;
      const inside = sameScale && this.inCache(c);
      let rendered = true;
      if (!c.valid || c.scene !== scene || scene.dirty === null || (sameScale && !inside) || (!sameScale && this.settled)) {
        this.renderCache(c, scene, bg, this.cx, this.cy, scale, null);
      } else if (sameScale && scene.dirty.length) {
        this.renderCache(c, scene, bg, c.cx, c.cy, c.scale, scene.dirty);
      } else {
        rendered = false;
        if (!sameScale) this.scheduleSettle();
      }
      scene.dirty = [];
      this.settled = false;
      const at = this.placement(c);
      const key = `${at.join()},${bg},${this.canvas.width}x${this.canvas.height},${this.lineweights}`;
      // the hover is drawn only inside these (a box short by a pixel must not leave a trace behind)
      const pad = 3 + (this.lineweights ? Math.ceil((2.11 * (96 / 25.4) * this.dpr) / 2) : 0);
      const hover = mergeRects(scene.hoverBoxes().map((b) => this.screenRect(b, scene.origin, at, c, pad)));
      const last = this.last;
      const scissored = (rects: Rect[], draw: () => void): void => {
        gl.enable(gl.SCISSOR_TEST);
        for (const r of rects) {
          gl.scissor(r[0], r[1], r[2] - r[0], r[3] - r[1]);
          draw();
        }
        gl.disable(gl.SCISSOR_TEST);
      };
      // the picture's pixels tell the hover where the entity still shows (1:1 only: a scaled
      // picture's are blended, so while a zoom settles the hover is drawn whole)
      const place: Rect | null = at[4] ? [at[0], at[1], at[2], at[3]] : null;
      const drawHover = (): void => scene.drawHover(this.progs, this.screenViewer(c, at), this.atlasTex, c.tex, place);
      if (!rendered && !this.full && last && last.scene === scene && last.key === key) {
        // only the hover changed: the picture again under the old and the new hover, then the hover
        scissored(mergeRects([...last.hover, ...hover]), () => this.blit(c, bg, at));
        scissored(hover, drawHover);
        this.stats.hoverFrames++;
      } else {
        this.blit(c, bg, at);
        scissored(hover, drawHover);
      }
      this.last = { scene, key, hover };
    } else {
      this.last = null;
      gl.bindFramebuffer(gl.FRAMEBUFFER, null);
      gl.viewport(0, 0, this.canvas.width, this.canvas.height);
      gl.clearColor(((bg >> 16) & 255) / 255, ((bg >> 8) & 255) / 255, (bg & 255) / 255, 1);
      gl.clear(gl.COLOR_BUFFER_BIT);
    }
    this.full = false;
    this.afterFrame?.();
    const st = this.stats;
    st.frames++;
    st.lastFrameMs = performance.now() - t0;
    st.lastFrameAt = performance.now();
  }

  private scheduleSettle(): void {
    if (this.settleTimer) clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(() => {
      this.settleTimer = null;
      this.settled = true;
      this.invalidate();
    }, 150);
  }

  private viewer(w: number, h: number, cx: number, cy: number, scale: number): Viewer {
    return {
      cx, cy, scale, width: w, height: h, lineweights: this.lineweights, pxPerMm: (96 / 25.4) * this.dpr,
      select: [0.26, 0.62, 1, 1], hover: [1, 0.85, 0.3, 1],
    };
  }

  private ensureCache(): ViewCache {
    const gl = this.gl;
    const w = Math.min(Math.ceil(this.canvas.width * (1 + 2 * MARGIN)), this.maxTex);
    const h = Math.min(Math.ceil(this.canvas.height * (1 + 2 * MARGIN)), this.maxTex);
    if (this.cache && this.cache.w === w && this.cache.h === h) return this.cache;
    if (this.cache) {
      gl.deleteFramebuffer(this.cache.fbo);
      gl.deleteTexture(this.cache.tex);
      gl.deleteRenderbuffer(this.cache.stencil);
    }
    const tex = gl.createTexture()!;
    gl.bindTexture(gl.TEXTURE_2D, tex);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, w, h, 0, gl.RGBA, gl.UNSIGNED_BYTE, null);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
    const stencil = gl.createRenderbuffer()!;
    gl.bindRenderbuffer(gl.RENDERBUFFER, stencil);
    gl.renderbufferStorage(gl.RENDERBUFFER, gl.DEPTH24_STENCIL8, w, h);
    const fbo = gl.createFramebuffer()!;
    gl.bindFramebuffer(gl.FRAMEBUFFER, fbo);
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0);
    gl.framebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_STENCIL_ATTACHMENT, gl.RENDERBUFFER, stencil);
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
    this.cache = { fbo, tex, stencil, w, h, cx: 0, cy: 0, scale: 1, valid: false, scene: null };
    return this.cache;
  }

  private get maxTex(): number {
    return this.gl.getParameter(this.gl.MAX_TEXTURE_SIZE) as number;
  }

  /** True when the screen's view lies inside the cached picture. */
  private inCache(c: ViewCache): boolean {
    const s = this.scale * this.dpr;
    const hw = this.canvas.width / 2 / s, hh = this.canvas.height / 2 / s;
    const cw = c.w / 2 / c.scale, ch = c.h / 2 / c.scale;
    return this.cx - hw >= c.cx - cw && this.cx + hw <= c.cx + cw && this.cy - hh >= c.cy - ch && this.cy + hh <= c.cy + ch;
  }

  /** Renders the scene into the cache centred on (cx, cy); only inside `boxes` when given. */
  private renderCache(c: ViewCache, scene: Scene, bg: number, cx: number, cy: number, scale: number, boxes: [number, number, number, number][] | null): void {
    const gl = this.gl;
    this.stats.renders++;
    gl.bindFramebuffer(gl.FRAMEBUFFER, c.fbo);
    gl.viewport(0, 0, c.w, c.h);
    gl.clearColor(((bg >> 16) & 255) / 255, ((bg >> 8) & 255) / 255, (bg & 255) / 255, 1);
    gl.clearStencil(0);
    const v = this.viewer(c.w, c.h, cx, cy, scale);
    const [ox, oy] = scene.origin;
    const hw = c.w / 2 / scale, hh = c.h / 2 / scale;
    if (!boxes) {
      gl.clear(gl.COLOR_BUFFER_BIT | gl.STENCIL_BUFFER_BIT);
      scene.draw(this.progs, v, this.atlasTex, this.quad, [cx - hw - ox, cy - hh - oy, cx + hw - ox, cy + hh - oy]);
      Object.assign(c, { cx, cy, scale, valid: true, scene });
    } else {
      // the changed boxes (merged into one when many), two pixels wider for lineweights and text
      const merged = boxes.length > 8 ? [boxes.reduce((a, b) => [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])])] : boxes;
      gl.enable(gl.SCISSOR_TEST);
      for (const b of merged) {
        const pad = 3 / scale;
        const x0 = Math.floor((b[0] - pad + ox - cx) * scale + c.w / 2), x1 = Math.ceil((b[2] + pad + ox - cx) * scale + c.w / 2);
        const y0 = Math.floor((b[1] - pad + oy - cy) * scale + c.h / 2), y1 = Math.ceil((b[3] + pad + oy - cy) * scale + c.h / 2);
        const sx = Math.max(0, x0), sy = Math.max(0, y0), ex = Math.min(c.w, x1), ey = Math.min(c.h, y1);
        if (ex <= sx || ey <= sy) continue;
        gl.scissor(sx, sy, ex - sx, ey - sy);
        gl.clear(gl.COLOR_BUFFER_BIT | gl.STENCIL_BUFFER_BIT);
        const w0 = (sx - c.w / 2) / scale + cx - ox, w1 = (ex - c.w / 2) / scale + cx - ox;
        const h0 = (sy - c.h / 2) / scale + cy - oy, h1 = (ey - c.h / 2) / scale + cy - oy;
        scene.draw(this.progs, v, this.atlasTex, this.quad, [w0, h0, w1, h1]);
      }
      gl.disable(gl.SCISSOR_TEST);
    }
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
  }

  /**
   * Where the cached picture goes on the screen at the current view (device pixels from the
   * bottom left: left, bottom, right, top; whole pixels at 1:1, so panning does not blur) and
   * whether it is 1:1 (scaled while a zoom settles).
   */
  private placement(c: ViewCache): [number, number, number, number, number] {
    const s = this.scale * this.dpr;
    const W = this.canvas.width, H = this.canvas.height;
    const left = (c.cx - c.w / 2 / c.scale - this.cx) * s + W / 2;
    const right = (c.cx + c.w / 2 / c.scale - this.cx) * s + W / 2;
    const bottom = (c.cy - c.h / 2 / c.scale - this.cy) * s + H / 2;
    const top = (c.cy + c.h / 2 / c.scale - this.cy) * s + H / 2;
    const exact = Math.abs(c.scale - s) <= s * 1e-9;
    const snap = (v: number): number => (exact ? Math.round(v) : v);
    return [snap(left), snap(bottom), snap(right), snap(top), exact ? 1 : 0];
  }

  /** The view the placed picture shows (its pixels exactly: the picture's centre and scale, moved by the placement). */
  private screenViewer(c: ViewCache, at: [number, number, number, number, number]): Viewer {
    const W = this.canvas.width, H = this.canvas.height;
    const s = (c.scale * (at[2] - at[0])) / c.w;
    const cx = c.cx - ((at[0] + at[2]) / 2 - W / 2) / s;
    const cy = c.cy - ((at[1] + at[3]) / 2 - H / 2) / s;
    return this.viewer(W, H, cx, cy, s);
  }

  /**
   * A box (relative to the scene's origin) as a screen rectangle of whole device pixels (from the
   * bottom left), `pad` pixels wider (lineweights, text), clamped to the screen.
   */
  private screenRect(b: [number, number, number, number], origin: [number, number], at: [number, number, number, number, number], c: ViewCache, pad: number): Rect {
    const W = this.canvas.width, H = this.canvas.height;
    const k = (at[2] - at[0]) / c.w;
    const x = (wx: number): number => at[0] + ((wx + origin[0] - c.cx) * c.scale + c.w / 2) * k;
    const y = (wy: number): number => at[1] + ((wy + origin[1] - c.cy) * c.scale + c.h / 2) * k;
    const x0 = Math.max(0, Math.floor(x(b[0]) - pad)), x1 = Math.min(W, Math.ceil(x(b[2]) + pad));
    const y0 = Math.max(0, Math.floor(y(b[1]) - pad)), y1 = Math.min(H, Math.ceil(y(b[3]) + pad));
    return [x0, y0, x1, y1];
  }

  /** Places the cached picture on the screen (inside the scissor, when one is set). */
  private blit(c: ViewCache, bg: number, at: [number, number, number, number, number]): void {
    const gl = this.gl;
    gl.viewport(0, 0, this.canvas.width, this.canvas.height);
    gl.clearColor(((bg >> 16) & 255) / 255, ((bg >> 8) & 255) / 255, (bg & 255) / 255, 1);
    gl.clear(gl.COLOR_BUFFER_BIT);
    const W = this.canvas.width, H = this.canvas.height;
    const p = this.progs.blit;
    gl.useProgram(p.prog);
    gl.uniform4f(p.uni.u_rect!, (at[0] / W) * 2 - 1, (at[1] / H) * 2 - 1, (at[2] / W) * 2 - 1, (at[3] / H) * 2 - 1);
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D, c.tex);
    const filter = at[4] ? gl.NEAREST : gl.LINEAR;
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, filter);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, filter);
    gl.uniform1i(p.uni.u_tex!, 0);
    attr(gl, p.loc.a_corner!, this.quad, 2, gl.FLOAT, false, 0, 0, 0);
    gl.drawArrays(gl.TRIANGLE_STRIP, 0, 4);
    gl.disableVertexAttribArray(p.loc.a_corner!);
  }

}

/** Non-empty rectangles; more than four become the one around them all (each is a draw). */
function mergeRects(rects: Rect[]): Rect[] {
  const list = rects.filter((r) => r[2] > r[0] && r[3] > r[1]);
  if (list.length <= 4) return list;
  return [list.reduce((a, r) => [Math.min(a[0], r[0]), Math.min(a[1], r[1]), Math.max(a[2], r[2]), Math.max(a[3], r[3])])];
}
