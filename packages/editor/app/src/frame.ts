// Reads a display-list frame ("LWDL", header length, JSON header, 8-byte aligned blobs) into typed
// array views over the received bytes (no copies).

import type { EncodedDisplayList, EncodedImage, EncodedText } from '../../../engine/src/render/display-frame.js';

export type TextRec = EncodedText;
export type ImageRec = EncodedImage;

/** The `display_list` answer: the encoded list with the document and version it shows. */
export interface DisplayFrame extends EncodedDisplayList {
  document_id: number;
  version: number;
  /** A streamed list: this part's number, how many there are, and the whole model's extents. */
  part?: number;
  parts?: number;
  extents?: [number, number, number, number];
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
