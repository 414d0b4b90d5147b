// A large model space in parts for a screen (the editor streams them, the view's part first): the
// parts hold every entity once, the first one is around the view, and the parts' display lists
// together are the whole list.
import { describe, expect, it } from 'vitest';
import { planDisplayParts } from '../src/index.js';
import type { DocStore } from '../src/store/document-store.js';
import { SpatialIndex } from '../src/store/spatial.js';
import { active, engine, ok } from './helpers.js';

/** A grid of n circles and lines, 10 units apart, plus an XLINE (no finite box). */
async function grid(n: number) {
  const e = engine();
  await ok(e, 'document_new', {});
  const side = Math.ceil(Math.sqrt(n));
  const entities: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const x = (i % side) * 10, y = Math.floor(i / side) * 10;
    entities.push(i % 2 ? { type: 'Circle', center: [x, y], radius: 2 } : { type: 'Line', start: [x, y], end: [x + 4, y + 3] });
  }
  await ok(e, 'entities_create', { entities });
  await ok(e, 'entities_create', { entities: [{ type: 'XLine', start: [0, 0], direction: [1, 1] }] });
  return { e, side };
}

describe('planDisplayParts', () => {
  it('sends a small drawing whole', async () => {
    const { e } = await grid(50);
    expect(planDisplayParts(active(e), { first: 100 })).toBeNull();
  });

  it('cuts a large model space into growing parts, every entity once, the view\'s part first', async () => {
    const { e, side } = await grid(3000);
    const store = active(e);
    const view: [number, number, number, number] = [0, 0, 60, 60];
    const plan = planDisplayParts(store, { first: 200, most: 800, view })!;
    expect(plan).not.toBeNull();
    const all = plan.parts.flat();
    expect(all.length).toBe(3001);
    expect(new Set(all).size).toBe(3001);
    expect(plan.parts.length).toBeGreaterThan(3);
    for (const p of plan.parts) expect(p.length).toBeLessThanOrEqual(800);
    // the entity without a box (the XLINE) comes last
    const xline = store.doc.modelSpace().entities.find((x) => x.type === 'XLINE')!.handle;
    expect(plan.parts[plan.parts.length - 1]).toContain(xline);
    // the first part holds the entities in view: those near the corner the view shows
    const first = new Set(plan.parts[0]);
    const inView = store.index.search(0, 0, 60, 60).map((it) => it.handle);
    expect(inView.length).toBeGreaterThan(20);
    for (const h of inView) expect(first.has(h)).toBe(true);
    expect(plan.extents).toEqual([-2, -2, (side - 1) * 10 + 4, expect.any(Number)]);
  });

  it('the parts\' display lists together are the whole list', async () => {
    const { e } = await grid(1200);
    const plan = planDisplayParts(active(e), { first: 150, most: 400 })!;
    const whole = await ok(e, 'display_list', { origin: plan.origin });
    let segments = 0, triangles = 0, texts = 0;
    const handles: string[] = [];
    for (const part of plan.parts) {
      const r = await ok(e, 'display_list', { handles: part, origin: plan.origin, tolerance: whole.tolerance });
      segments += r.segments;
      triangles += r.triangles;
      texts += r.texts.length;
      handles.push(...r.handles);
    }
    expect(segments).toBe(whole.segments);
    expect(triangles).toBe(whole.triangles);
    expect(texts).toBe(whole.texts.length);
    expect(handles.sort()).toEqual([...whole.handles].sort());
  });

  it('plans a large load before its index has items as it plans once they are made', () => {
    // 60 000 boxes (a load kept as arrays until later), some without a box, in reverse handle order
    const n = 60_000;
    const handles = Array.from({ length: n }, (_, i) => (i + 0x40).toString(16).toUpperCase());
    const box = (i: number): { min: number[]; max: number[] } | null => (i % 97 === 0 ? null : { min: [(i * 37) % 1000, (i * 53) % 600], max: [(i * 37) % 1000 + 2, (i * 53) % 600 + 1] });
    const entries = handles.map((h, i) => ({ handle: h, box: box(i) })).reverse();
    const layout = { name: 'Model', handle: '', block: { name: '*Model_Space', entities: entries.map((x) => ({ handle: x.handle })) } };
    const plan = (index: SpatialIndex) => planDisplayParts({ index, doc: { layouts: () => [layout] } } as unknown as DocStore, { first: 3000, most: 9000, view: [0, 0, 100, 100] })!;
    const pending = new SpatialIndex();
    pending.load(entries);
    expect((pending as unknown as { flat: unknown }).flat).not.toBeNull();
    const early = plan(pending);
    // planning made no item
    expect((pending as unknown as { flat: unknown }).flat).not.toBeNull();
    const built = new SpatialIndex();
    built.load(entries);
    built.search(0, 0, 1, 1);
    expect((built as unknown as { flat: unknown }).flat).toBeNull();
    expect(early).toEqual(plan(built));
    expect(early.parts.flat().length).toBe(n);
  });

  it('keeps handle order within a part when the index holds another order, and splits a pile larger than a part', () => {
    // 6 000 entities indexed in reverse handle order, a third of them piled on one spot
    const n = 6000;
    const handles = Array.from({ length: n }, (_, i) => (i + 0x40).toString(16).toUpperCase());
    const box = (i: number): { min: number[]; max: number[] } => (i % 3 === 0 ? { min: [200, 150], max: [201, 151] } : { min: [(i * 37) % 1000, (i * 53) % 600], max: [(i * 37) % 1000 + 2, (i * 53) % 600 + 2] });
    const index = new SpatialIndex();
    index.load(handles.map((h, i) => ({ handle: h, box: box(i) })).reverse());
    const layout = { name: 'Model', handle: '', block: { name: '*Model_Space', entities: handles.map((h) => ({ handle: h })) } };
    const store = { index, doc: { layouts: () => [layout] } } as unknown as DocStore;
    const plan = planDisplayParts(store, { first: 300, most: 700, view: [200, 150, 201, 151] })!;
    const all = plan.parts.flat();
    expect(all.length).toBe(n);
    expect(new Set(all).size).toBe(n);
    for (const p of plan.parts) {
      expect(p.length).toBeLessThanOrEqual(700);
      const ords = p.map((h) => parseInt(h, 16));
      expect(ords).toEqual([...ords].sort((a, b) => a - b));
    }
    // the view's cell (a quarter of the grid, the pile in it: about 3 000 entities) comes first,
    // cut into parts of 700
    expect(plan.parts[0]!.length).toBe(700);
    expect(plan.parts[1]!.length).toBe(700);
    const first = new Set(plan.parts.slice(0, 5).flat());
    expect(handles.filter((_, i) => i % 3 === 0).every((h) => first.has(h))).toBe(true);
  });
});
