// Tag-level reading for tools and tests: the flat tag list of a DXF file or buffer.
import type { Diagnostic } from '../document-api.js';
import type { Tag } from '../types.js';
import { codecFor } from './encoding.js';
import type { RecordSink } from './record-sink.js';
import { pumpBuffer, type TagScanner } from './source.js';

export interface ReadTagsOptions {
  /** Code page for values with bytes > 0x7F (default cp1252), or 'utf8'. */
  codepage?: string;
  /** Decode `\U+XXXX` escapes (pre-R2007 files). Default true unless codepage is 'utf8'. */
  unicodeEscapes?: boolean;
}

/** All tags of a DXF buffer (comments skipped, nothing after `0 EOF`), with repairs reported. */
export function readTags(bytes: Uint8Array, opts: ReadTagsOptions = {}): { tags: Tag[]; diagnostics: Diagnostic[] } {
  const tags: Tag[] = [];
  const diagnostics: Diagnostic[] = [];
  const utf8 = opts.codepage?.toLowerCase().replace('-', '') === 'utf8';
  const codec = codecFor(opts.codepage ?? 'ANSI_1252', utf8);
  const sink: RecordSink & { attach(s: TagScanner): void } = {
    attach(s) {
      s.setDecoder(codec.decode, opts.unicodeEscapes ?? !utf8);
    },
    record(r) {
      for (let i = 0; i < r.n; i++) tags.push([r.codes[i]!, r.str(i)]);
    },
  };
  pumpBuffer(bytes, sink, (d) => diagnostics.push(d));
  return { tags, diagnostics };
}
