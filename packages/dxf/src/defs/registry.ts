// One table of record declarations: the reader, the writer, the engine's JSON and its `where`
// paths all look types up here, so adding a typed entity means adding one declaration file.
import type { RecordDef } from '../types.js';

const defs = new Map<string, RecordDef>();

export function registerDef(def: RecordDef): RecordDef {
  if (defs.has(def.type)) throw new Error(`record type ${def.type} declared twice`);
  defs.set(def.type, def);
  return def;
}

/** The declaration of a type, or undefined for types kept as raw tags. */
export function getDef(type: string): RecordDef | undefined {
  return defs.get(type);
}

export function declaredTypes(): string[] {
  return [...defs.keys()];
}
