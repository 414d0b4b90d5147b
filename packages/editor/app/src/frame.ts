// Reads a display-list frame ("LWDL", header length, JSON header, 8-byte aligned blobs) into typed
// array views over the received bytes (no copies).

export interface TextRec {
  ent: number; text: string; x: number; y: number; height: number; em: number; rotation: number; width_factor: number;
  oblique: number; align: 'left' | 'center' | 'right'; width: number; rgba: number; clip: number;
  mirror_x: boolean; mirror_y: boolean; underline: boolean; overline: boolean; strike: boolean;
}

export interface ImageRec {
  ent: number; matrix: [number, number, number, number, number, number]; px_width: number; px_height: number;
  mime: string; data: Uint8Array | null; clip: number;
}

export interface DisplayFrame {
  document_id: number;
  version: number;
  layout: string;
  background: number;
  bounds: [number, number, number, number] | null;
  origin: [number, number];
  tolerance: number;
  handles: string[];
  layers: string[];
  segments: number;
  triangles: number;
  seg_xy: Float32Array;
  seg_rgba: Uint32Array;
  seg_ent: Uint32Array;
  seg_lw: Uint8Array;
  seg_clip: Int16Array | null;
  tri_xy: Float32Array;
  tri_rgba: Uint32Array;
  tri_ent: Uint32Array;
  tri_clip: Int16Array | null;
  texts: TextRec[];
  images: ImageRec[];
  clips: { rings: number[][]; parent: number }[];
  /** Entity ranges in spatial tiles with their boxes (relative to `origin`). */
  tiles: { ent_start: number; ent_end: number; box: [number, number, number, number] }[];
}

interface BlobRef { offset: number; bytes: number; type?: 'f32' | 'u32' | 'u8' | 'i16' }

export function decodeFrame(buf: ArrayBuffer): DisplayFrame {
  const dv = new DataView(buf);
  const magic = String.fromCharCode(dv.getUint8(0), dv.getUint8(1), dv.getUint8(2), dv.getUint8(3));
  if (magic !== 'LWDL') throw new Error('not a display-list frame');
  const headLen = dv.getUint32(4, true);
  const header = JSON.parse(new TextDecoder().decode(new Uint8Array(buf, 8, headLen))) as Record<string, any>;
  const base = 8 + headLen;
  const view = (r: BlobRef | null | undefined): any => {
    if (!r) return null;
    const at = base + r.offset;
    switch (r.type) {
      case 'f32': return new Float32Array(buf, at, r.bytes / 4);
      case 'u32': return new Uint32Array(buf, at, r.bytes / 4);
      case 'i16': return new Int16Array(buf, at, r.bytes / 2);
      default: return new Uint8Array(buf, at, r.bytes);
    }
  };
  const out: Record<string, any> = { ...header };
  for (const [k, r] of Object.entries(header.buffers as Record<string, BlobRef>)) out[k] = view(r);
  out.images = (header.images ?? []).map((i: any) => ({ ...i, data: view(i.data) }));
  for (const k of ['seg_clip', 'tri_clip']) if (!(k in out)) out[k] = null;
  out.tiles ??= [];
  return out as DisplayFrame;
}
