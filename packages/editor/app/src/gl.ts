// WebGL2 drawing of a scene: the display list's segment and triangle arrays are vertex arrays as
// they arrive (their positions are uploaded without a copy); colours and a flag byte are per
// vertex. The flag hides (deleted or replaced entities), selects and hovers, so a change to one
// entity touches a few bytes on the GPU, never the rest.

export const FLAG_SELECTED = 1;
export const FLAG_HOVER = 2;
export const FLAG_HIDDEN = 4;

const COMMON = `#version 300 es
precision highp float;
uniform vec2 u_center;   // view centre relative to the scene origin
uniform vec2 u_scale;    // clip units per drawing unit (x, y)
uniform vec2 u_px;       // clip units per device pixel (x, y)
uniform vec4 u_select;
uniform vec4 u_hover;
vec4 tint(vec4 c, float flag) {
  int f = int(flag + 0.5);
  if ((f & 1) != 0) return u_select;
  if ((f & 2) != 0) return u_hover;
  return c;
}
bool hidden(float flag) { return (int(flag + 0.5) & 4) != 0; }
vec2 toClip(vec2 p) { return (p - u_center) * u_scale; }
`;

// Hairlines (GL_LINES) and fills (GL_TRIANGLES) over the display list's arrays as they are (x0 y0
// x1 y1 per segment is two vertices). SwiftShader draws instanced meshes one instance at a time,
// so the common path uses plain vertex arrays; instancing is kept for lineweight quads only.
const FLAT_VS = `${COMMON}
in vec2 a_pos;
in vec4 a_color;
in float a_flag;
out vec4 v_color;
out vec4 v_own;
// the hover's dashes: the fragment's point of the segment and one end of it (device pixels)
out vec2 v_at;
flat out vec2 v_end;
void main() {
  v_color = tint(a_color, a_flag);
  v_own = a_color;
  gl_Position = hidden(a_flag) ? vec4(2.0, 2.0, 2.0, 1.0) : vec4(toClip(a_pos), 0.0, 1.0);
  // interpolated along the line, and flat (the provoking vertex's): their difference runs exactly
  // along the segment, whichever pixels the line lights
  v_at = (gl_Position.xy + 1.0) / u_px;
  v_end = v_at;
}`;

// Lineweights (LWT on): one quad per segment, instanced, reading the same arrays.
const QUAD_VS = `${COMMON}
in vec4 a_seg;     // x0 y0 x1 y1
in vec4 a_color;
in float a_flag;
in float a_lw;     // lineweight in 0.01 mm (0: hairline)
uniform float u_lwpx;  // device pixels per 0.01 mm of lineweight
out vec4 v_color;
out vec4 v_own;
// the hover's dashes: v_at - v_end runs along the segment (as FLAT_VS's)
out vec2 v_at;
flat out vec2 v_end;
void main() {
  v_color = tint(a_color, a_flag);
  v_own = a_color;
  if (hidden(a_flag) || a_lw * u_lwpx < 1.5) { gl_Position = vec4(2.0, 2.0, 2.0, 1.0); return; }
  vec2 a = toClip(a_seg.xy);
  vec2 b = toClip(a_seg.zw);
  vec2 d = (b - a) / u_px;
  float len = length(d);
  vec2 n = len > 0.0 ? vec2(-d.y, d.x) / len : vec2(0.0, 1.0);
  vec2 t = len > 0.0 ? d / len : vec2(1.0, 0.0);
  // the direction itself (the same at every vertex: exact all over the wide quad)
  v_at = t;
  v_end = vec2(0.0);
  float h = a_lw * u_lwpx * 0.5;
  int k = gl_VertexID;
  vec2 base = (k == 0 || k == 2) ? a : b;
  vec2 off = (n * ((k < 2) ? h : -h) + t * ((k == 0 || k == 2) ? -h : h)) * u_px;
  gl_Position = vec4(base + off, 0.0, 1.0);
}`;

const FLAT_FS = `#version 300 es
precision mediump float;
in vec4 v_color;
out vec4 o;
void main() { o = v_color; }`;

// The hover drawn over the cached picture (Scene.drawHover): the hover colour, only where the
// picture shows the entity's own colour, so what was drawn over the entity (a line across a
// hatch) stays as it is. u_place is where the picture lies on the screen (device pixels: x0 y0
// x1 y1); x1 <= x0 draws without the test.
// Lines are dashed (AutoCAD's rollover highlight): u_dash.x device pixels of every u_dash.y along
// the screen axis the segment runs most along (its direction: v_at - v_end), so a dash is u_dash.x
// to 1.41 u_dash.x pixels long in every direction and runs on across a curve's short segments;
// the gaps keep the picture (the entity's own look). u_dash.y = 0: solid (fills).
const HOVER_FS = `#version 300 es
precision highp float;
in vec4 v_color;
in vec4 v_own;
in vec2 v_at;
flat in vec2 v_end;
uniform sampler2D u_cache;
uniform vec4 u_place;
uniform vec2 u_dash;
out vec4 o;
void main() {
  if (u_dash.y > 0.0) {
    vec2 d = abs(v_at - v_end);
    float s = d.x >= d.y ? gl_FragCoord.x : gl_FragCoord.y;
    if (mod(floor(s), u_dash.y) >= u_dash.x) discard;
  }
  if (u_place.z > u_place.x) {
    vec4 c = texture(u_cache, (gl_FragCoord.xy - u_place.xy) / (u_place.zw - u_place.xy));
    if (any(greaterThan(abs(c.rgb - v_own.rgb), vec3(1.5 / 255.0)))) discard;
  }
  o = v_color;
}`;

// Text: two triangles per character, corners already in drawing units; a character smaller than
// u_minpx on screen collapses (unreadable anyway).
const GLYPH_VS = `${COMMON}
in vec2 a_pos;
in vec2 a_uv;
in float a_em;     // the character's em size in drawing units
in vec4 a_color;
in float a_flag;
uniform float u_minpx;
out vec4 v_color;
out vec2 v_uv;
void main() {
  v_color = tint(a_color, a_flag);
  float emPx = a_em * u_scale.y / u_px.y;
  if (hidden(a_flag) || emPx < u_minpx) { gl_Position = vec4(2.0, 2.0, 2.0, 1.0); return; }
  gl_Position = vec4(toClip(a_pos), 0.0, 1.0);
  v_uv = a_uv;
}`;

const GLYPH_FS = `#version 300 es
precision mediump float;
in vec4 v_color;
in vec2 v_uv;
uniform sampler2D u_atlas;
out vec4 o;
void main() {
  float a = texture(u_atlas, v_uv).a;
  if (a < 0.02) discard;
  o = vec4(v_color.rgb, v_color.a * a);
}`;

const IMAGE_VS = `${COMMON}
in vec2 a_corner;
uniform mat3 u_m;  // pixel space (0..w, 0..h, y down) -> drawing units
uniform vec2 u_size;
out vec2 v_uv;
void main() {
  vec3 p = u_m * vec3(a_corner * u_size, 1.0);
  gl_Position = vec4(toClip(p.xy), 0.0, 1.0);
  v_uv = a_corner;
}`;

const IMAGE_FS = `#version 300 es
precision mediump float;
in vec2 v_uv;
uniform sampler2D u_tex;
out vec4 o;
void main() { o = texture(u_tex, v_uv); }`;

// The view cache drawn onto the screen: a textured quad over the clip-space rectangle u_rect.
const BLIT_VS = `#version 300 es
in vec2 a_corner;
uniform vec4 u_rect;
out vec2 v_uv;
void main() {
  v_uv = a_corner;
  gl_Position = vec4(mix(u_rect.xy, u_rect.zw, a_corner), 0.0, 1.0);
}`;

const BLIT_FS = `#version 300 es
precision mediump float;
in vec2 v_uv;
uniform sampler2D u_tex;
out vec4 o;
void main() { o = texture(u_tex, v_uv); }`;

const STENCIL_VS = `${COMMON}
in vec2 a_pos;
void main() { gl_Position = vec4(toClip(a_pos), 0.0, 1.0); }`;

const STENCIL_FS = `#version 300 es
precision mediump float;
out vec4 o;
void main() { o = vec4(0.0); }`;

export interface Program {
  prog: WebGLProgram;
  loc: Record<string, number>;
  uni: Record<string, WebGLUniformLocation | null>;
}

function compile(gl: WebGL2RenderingContext, vs: string, fs: string, attrs: string[], uniforms: string[]): Program {
  const sh = (type: number, src: string): WebGLShader => {
    const s = gl.createShader(type)!;
    gl.shaderSource(s, src);
    gl.compileShader(s);
    if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(`shader: ${gl.getShaderInfoLog(s)}`);
    return s;
  };
  const prog = gl.createProgram()!;
  gl.attachShader(prog, sh(gl.VERTEX_SHADER, vs));
  gl.attachShader(prog, sh(gl.FRAGMENT_SHADER, fs));
  gl.linkProgram(prog);
  if (!gl.getProgramParameter(prog, gl.LINK_STATUS)) throw new Error(`program: ${gl.getProgramInfoLog(prog)}`);
  const loc: Record<string, number> = {};
  for (const a of attrs) loc[a] = gl.getAttribLocation(prog, a);
  const uni: Record<string, WebGLUniformLocation | null> = {};
  for (const u of ['u_center', 'u_scale', 'u_px', 'u_select', 'u_hover', ...uniforms]) uni[u] = gl.getUniformLocation(prog, u);
  return { prog, loc, uni };
}

export interface Programs {
  seg: Program;
  quad: Program;
  tri: Program;
  glyph: Program;
  image: Program;
  stencil: Program;
  blit: Program;
  /** Hairlines and fills of the hover over the cached picture. */
  hover: Program;
  /** Lineweight quads of the hover over the cached picture. */
  hoverQuad: Program;
}

export function programs(gl: WebGL2RenderingContext): Programs {
  return {
    seg: compile(gl, FLAT_VS, FLAT_FS, ['a_pos', 'a_color', 'a_flag'], []),
    quad: compile(gl, QUAD_VS, FLAT_FS, ['a_seg', 'a_color', 'a_flag', 'a_lw'], ['u_lwpx']),
    tri: compile(gl, FLAT_VS, FLAT_FS, ['a_pos', 'a_color', 'a_flag'], []),
    glyph: compile(gl, GLYPH_VS, GLYPH_FS, ['a_pos', 'a_uv', 'a_em', 'a_color', 'a_flag'], ['u_atlas', 'u_minpx']),
    image: compile(gl, IMAGE_VS, IMAGE_FS, ['a_corner'], ['u_m', 'u_size', 'u_tex']),
    stencil: compile(gl, STENCIL_VS, STENCIL_FS, ['a_pos'], []),
    blit: compile(gl, BLIT_VS, BLIT_FS, ['a_corner'], ['u_rect', 'u_tex']),
    hover: compile(gl, FLAT_VS, HOVER_FS, ['a_pos', 'a_color', 'a_flag'], ['u_cache', 'u_place', 'u_dash']),
    hoverQuad: compile(gl, QUAD_VS, HOVER_FS, ['a_seg', 'a_color', 'a_flag', 'a_lw'], ['u_lwpx', 'u_cache', 'u_place', 'u_dash']),
  };
}

/**
 * A GPU buffer, either set once (a whole scene's array) or appended to. What is appended, and what
 * is set with `keep`, is mirrored on the CPU in an array grown by doubling: a growth re-uploads
 * from the mirror, and an append copies only its own bytes.
 */
export class GrowBuffer {
  buf: WebGLBuffer;
  length = 0;
  /** Bytes the GPU buffer holds room for (content without a mirror, grown by `extend`). */
  private capacity = 0;
  private mirror: Uint8Array | null = null;

  constructor(private readonly gl: WebGL2RenderingContext) {
    this.buf = gl.createBuffer()!;
  }

  /** Replaces the content; with `keep`, `data` becomes the CPU mirror (not copied). */
  set(data: ArrayBufferView, keep = false): void {
    const gl = this.gl;
    gl.bindBuffer(gl.ARRAY_BUFFER, this.buf);
    gl.bufferData(gl.ARRAY_BUFFER, data, gl.STATIC_DRAW);
    this.length = this.capacity = data.byteLength;
    this.mirror = keep ? bytesOf(data) : null;
  }

  /**
   * Appends bytes to content that has no CPU mirror (a scene arriving in parts): the buffer grows
   * on the GPU (a copy into a larger one), so the arrays are never held twice. Returns the offset.
   */
  extend(data: ArrayBufferView): number {
    if (this.mirror) return this.append(data);
    const gl = this.gl;
    const at = this.length;
    const need = at + data.byteLength;
    if (need > this.capacity) {
      const cap = Math.max(need, Math.ceil(this.capacity * 1.5), 4096);
      const fresh = gl.createBuffer()!;
      gl.bindBuffer(gl.COPY_WRITE_BUFFER, fresh);
      gl.bufferData(gl.COPY_WRITE_BUFFER, cap, gl.STATIC_DRAW);
      if (at) {
        gl.bindBuffer(gl.COPY_READ_BUFFER, this.buf);
        gl.copyBufferSubData(gl.COPY_READ_BUFFER, gl.COPY_WRITE_BUFFER, 0, 0, at);
      }
      gl.deleteBuffer(this.buf);
      this.buf = fresh;
      this.capacity = cap;
    }
    gl.bindBuffer(gl.ARRAY_BUFFER, this.buf);
    gl.bufferSubData(gl.ARRAY_BUFFER, at, data);
    this.length = need;
    return at;
  }

  /** Appends bytes; returns their byte offset. */
  append(data: ArrayBufferView): number {
    const gl = this.gl;
    const at = this.length;
    const need = at + data.byteLength;
    if (at && !this.mirror) throw new Error('GrowBuffer: append to content set without keep');
    gl.bindBuffer(gl.ARRAY_BUFFER, this.buf);
    let mirror = this.mirror;
    if (!mirror || need > mirror.length) {
      const grown = new Uint8Array(Math.max(need, (mirror?.length ?? 0) * 2, 4096));
      if (mirror) grown.set(mirror.subarray(0, at));
      mirror = this.mirror = grown;
      gl.bufferData(gl.ARRAY_BUFFER, grown.byteLength, gl.DYNAMIC_DRAW);
      if (at) gl.bufferSubData(gl.ARRAY_BUFFER, 0, grown, 0, at);
    }
    mirror.set(bytesOf(data), at);
    gl.bufferSubData(gl.ARRAY_BUFFER, at, data);
    this.length = need;
    return at;
  }

  /** The content's CPU mirror; after editing it, `flush` the edited byte range. */
  get bytes(): Uint8Array {
    if (!this.mirror) throw new Error('GrowBuffer: content set without keep has no CPU mirror');
    return this.mirror.subarray(0, this.length);
  }

  /** Uploads bytes [from, to) of the mirror. */
  flush(from: number, to: number): void {
    const gl = this.gl;
    gl.bindBuffer(gl.ARRAY_BUFFER, this.buf);
    gl.bufferSubData(gl.ARRAY_BUFFER, from, this.bytes, from, to - from);
  }

  dispose(): void {
    this.gl.deleteBuffer(this.buf);
  }
}

function bytesOf(v: ArrayBufferView): Uint8Array {
  return v instanceof Uint8Array ? v : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

/** Binds a float attribute to a buffer (instanced unless divisor 0). */
export function attr(gl: WebGL2RenderingContext, loc: number, buf: WebGLBuffer, size: number, type: number, normalized: boolean, stride: number, offset: number, divisor = 1): void {
  if (loc < 0) return;
  gl.bindBuffer(gl.ARRAY_BUFFER, buf);
  gl.enableVertexAttribArray(loc);
  gl.vertexAttribPointer(loc, size, type, normalized, stride, offset);
  gl.vertexAttribDivisor(loc, divisor);
}
