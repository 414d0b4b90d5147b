// The `display_list` answer as one binary frame for the browser: a JSON header, then every typed
// array (and image) as raw bytes, 8-byte aligned, so the page views them without copying or
// base64. Layout: "LWDL" | u32 little-endian header length | header (UTF-8 JSON) | blobs.
export const FRAME_MAGIC = 'LWDL';

export interface BlobRef {
  offset: number;
  bytes: number;
  /** Element type of a typed array (absent: raw bytes, e.g. an image file). */
  type?: 'f32' | 'u32' | 'u8' | 'i16';
}

const TYPES: [new (...a: never[]) => ArrayBufferView, BlobRef['type']][] = [
  [Float32Array, 'f32'], [Uint32Array, 'u32'], [Uint8Array, 'u8'], [Int16Array, 'i16'],
];

function typeOf(v: ArrayBufferView): BlobRef['type'] {
  for (const [C, t] of TYPES) if (v instanceof C && !Buffer.isBuffer(v)) return t;
  return undefined;
}

/** Packs a result whose fields (and images' `data`) may be typed arrays into one frame. */
export function packFrame(result: Record<string, unknown>): Buffer[] {
  const blobs: Buffer[] = [];
  let offset = 0;
  const ref = (v: ArrayBufferView): BlobRef => {
    const bytes = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
    const r: BlobRef = { offset, bytes: bytes.length };
    const t = typeOf(v);
    if (t) r.type = t;
    blobs.push(bytes);
    const pad = (8 - (bytes.length % 8)) % 8;
    if (pad) blobs.push(Buffer.alloc(pad));
    offset += bytes.length + pad;
    return r;
  };
  const header: Record<string, unknown> = {};
  const buffers: Record<string, BlobRef> = {};
  for (const [k, v] of Object.entries(result)) {
    if (ArrayBuffer.isView(v)) buffers[k] = ref(v);
    else if (k === 'images' && Array.isArray(v)) {
      header.images = v.map((img: Record<string, unknown>) => {
        const { data, ...rest } = img;
        return { ...rest, data: ArrayBuffer.isView(data) ? ref(data) : null };
      });
    } else header[k] = v;
  }
  header.buffers = buffers;
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const headPad = (8 - ((8 + json.length) % 8)) % 8;
  const head = Buffer.alloc(8 + json.length + headPad, 0x20);
  head.write(FRAME_MAGIC, 0, 'latin1');
  head.writeUInt32LE(json.length + headPad, 4);
  json.copy(head, 8);
  return [head, ...blobs];
}
