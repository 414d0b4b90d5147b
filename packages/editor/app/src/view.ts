// The camera and the WebGL2 canvas: drawing units <-> screen pixels, zoom about the cursor, pan,
// fit, and one frame per animation frame when something changed.
import { programs, type Programs } from './gl.js';
import type { Scene, Viewer } from './scene.js';
import type { Atlas } from './text.js';

export const DARK_BG = 0x212830;
export const LIGHT_BG = 0xffffff;

export interface Stats {
  frames: number;
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
  readonly stats: Stats = { frames: 0, lastFrameMs: 0, lastFrameAt: 0 };
  private pending = false;
  /** Drawn after the scene (overlay canvas: cursor, snaps, windows, rubber bands). */
  afterFrame: (() => void) | null = null;

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
    this.invalidate();
  }

  /** Zooms by `factor` keeping the drawing point under (sx, sy) in place. */
  zoomAt(sx: number, sy: number, factor: number): void {
    const [wx, wy] = this.toWorld(sx, sy);
    this.scale = Math.min(Math.max(this.scale * factor, 1e-12), 1e12);
    this.cx = wx - (sx - this.width / 2) / this.scale;
    this.cy = wy + (sy - this.height / 2) / this.scale;
    this.invalidate();
  }

  panBy(dxPx: number, dyPx: number): void {
    this.cx -= dxPx / this.scale;
    this.cy += dyPx / this.scale;
    this.invalidate();
  }

  /** Asks for a frame (at most one per animation frame). */
  invalidate(): void {
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

  render(): void {
    const t0 = performance.now();
    const gl = this.gl;
    if (this.atlas.dirty) this.uploadAtlas();
    gl.viewport(0, 0, this.canvas.width, this.canvas.height);
    const bg = this.scene?.background ?? this.background;
    gl.clearColor(((bg >> 16) & 255) / 255, ((bg >> 8) & 255) / 255, (bg & 255) / 255, 1);
    gl.clearStencil(0);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.STENCIL_BUFFER_BIT);
    if (this.scene) {
      const v: Viewer = {
        cx: this.cx, cy: this.cy, scale: this.scale * this.dpr, width: this.canvas.width, height: this.canvas.height,
        lineweights: this.lineweights, pxPerMm: (96 / 25.4) * this.dpr,
        select: [0.26, 0.62, 1, 1], hover: [1, 0.85, 0.3, 1],
      };
      this.scene.draw(this.progs, v, this.atlasTex, this.quad);
    }
    this.afterFrame?.();
    const s = this.stats;
    s.frames++;
    s.lastFrameMs = performance.now() - t0;
    s.lastFrameAt = performance.now();
  }
}
