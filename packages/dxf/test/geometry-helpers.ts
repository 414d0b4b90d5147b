import type { Block, DocumentApi } from '../src/document-api.js';
import type { Entity } from '../src/types.js';

let h = 0x100;
export function ent(type: string, attrs: Record<string, unknown>, children?: Entity[]): Entity {
  const e: Entity = { kind: 'entity', type, handle: (h++).toString(16).toUpperCase(), owner: '1F', attrs };
  if (children) e.children = children;
  return e;
}

/** A document stub resolving blocks only (what geometry needs). */
export function docWith(blocks: Record<string, { base?: [number, number, number]; entities: Entity[] }>): DocumentApi {
  const map = new Map<string, Block>();
  for (const [name, b] of Object.entries(blocks)) {
    map.set(name, { name, block: ent('BLOCK', { name, base_point: b.base ?? [0, 0, 0] }), endblk: ent('ENDBLK', {}), entities: b.entities });
  }
  return { getBlock: (n: string) => map.get(n) ?? [...map.values()].find((b) => b.name.toLowerCase() === n.toLowerCase()), blocks: map } as unknown as DocumentApi;
}

export function close(a: readonly number[], b: readonly number[], eps = 1e-9): boolean {
  return a.length === b.length && a.every((v, i) => Math.abs(v - b[i]!) <= eps);
}
