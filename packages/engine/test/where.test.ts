// `where` filters: parsing (invalid_where) and every operator, on records built in memory.
import { describe, expect, it } from 'vitest';
import { OpError } from '../src/index.js';
import { compileWhere, parseWhere } from '../src/query/where.js';
import type { Entity } from '../src/dxf.js';

const rec = (type: string, handle: string, attrs: Record<string, unknown>, xdata?: Entity['xdata']): Entity => ({ kind: 'entity', type, handle, owner: '1F', attrs, xdata });
const all = [
  rec('CIRCLE', 'A1', { layer: 'Walls', center: [0, 0, 0], radius: 3 }),
  rec('CIRCLE', 'A2', { layer: 'Doors', center: [5, 5, 0], radius: 7, color: 1 }),
  rec('LINE', 'A3', { start: [0, 0, 0], end: [10, 0, 0] }),
  rec('TEXT', 'A4', { text: 'Hello world', insert: [1, 2, 0], height: 2.5, layer: 'Notes' }, [{ app: 'MYAPP', tags: [[1000, 'tag']] }]),
];
const run = (filters: unknown) => {
  const f = compileWhere(parseWhere(filters));
  return all.filter((e) => (f ? f(e) : true)).map((e) => e.handle);
};

describe('where', () => {
  it('rejects invalid filters with invalid_where', () => {
    for (const bad of ['[{', '"x"', '[1]', '[{"path":"radius","op":"eq","value":1}]', '[{"path":"/radius","op":"like","value":1}]',
      '[{"path":"/radius","op":"in","value":1}]', '[{"path":"/radius","op":"gt","value":[1]}]', '[{"path":"/radius","op":"eq"}]']) {
      expect(() => parseWhere(bad), bad).toThrow(OpError);
      try { parseWhere(bad); } catch (err) { expect((err as OpError).code).toBe('invalid_where'); }
    }
  });

  it('compares numbers', () => {
    expect(run([{ path: '/radius', op: 'gt', value: 5 }])).toEqual(['A2']);
    expect(run([{ path: '/radius', op: 'gte', value: 3 }])).toEqual(['A1', 'A2']);
    expect(run([{ path: '/radius', op: 'lt', value: 5 }])).toEqual(['A1']);
    expect(run([{ path: '/radius', op: 'lte', value: 7 }])).toEqual(['A1', 'A2']);
    expect(run([{ path: '/radius', op: 'eq', value: 3 }])).toEqual(['A1']);
    expect(run([{ path: '/radius', op: 'ne', value: 3 }])).toEqual(['A2', 'A3', 'A4']);
  });

  it('defaults of common attributes take part (layer 0, color 256)', () => {
    expect(run([{ path: '/layer', op: 'eq', value: '0' }])).toEqual(['A3']);
    expect(run([{ path: '/color', op: 'eq', value: 256 }])).toEqual(['A1', 'A3', 'A4']);
  });

  it('in, contains, startsWith, exists', () => {
    expect(run([{ path: '/layer', op: 'in', value: ['Walls', 'Notes'] }])).toEqual(['A1', 'A4']);
    expect(run([{ path: '/text', op: 'contains', value: 'world' }])).toEqual(['A4']);
    expect(run([{ path: '/value', op: 'startsWith', value: 'Hell' }])).toEqual(['A4']);
    expect(run([{ path: '/center', op: 'contains', value: 5 }])).toEqual(['A2']);
    expect(run([{ path: '/color', op: 'exists' }])).toEqual(['A2']);
    expect(run([{ path: '/color', op: 'exists', value: false }])).toEqual(['A1', 'A3', 'A4']);
    expect(run([{ path: '/xdata/MYAPP', op: 'exists' }])).toEqual(['A4']);
    expect(run([{ path: '/xdata', op: 'contains', value: 'MYAPP' }])).toEqual(['A4']);
  });

  it('deep pointers, points and type names', () => {
    expect(run([{ path: '/center/0', op: 'gt', value: 1 }])).toEqual(['A2']);
    expect(run([{ path: '/end', op: 'eq', value: [10, 0] }])).toEqual(['A3']);
    expect(run([{ path: '/type', op: 'eq', value: 'Circle' }])).toEqual(['A1', 'A2']);
    expect(run([{ path: '/type', op: 'eq', value: 'LINE' }])).toEqual(['A3']);
    expect(run([{ path: '/type', op: 'in', value: ['Text', 'line'] }])).toEqual(['A3', 'A4']);
    expect(run([{ path: '/handle', op: 'eq', value: 'A2' }])).toEqual(['A2']);
  });

  it('ANDs several filters; a single object is one filter', () => {
    expect(run([{ path: '/type', op: 'eq', value: 'Circle' }, { path: '/layer', op: 'eq', value: 'Doors' }])).toEqual(['A2']);
    expect(run({ path: '/radius', op: 'gt', value: 5 })).toEqual(['A2']);
    expect(run([])).toEqual(['A1', 'A2', 'A3', 'A4']);
  });

  it('evaluates 1M records under 100 ms (one-segment fast path)', () => {
    const many: Entity[] = [];
    for (let i = 0; i < 1_000_000; i++) many.push(rec('CIRCLE', i.toString(16), { center: [i, 0, 0], radius: i % 10 }));
    const f = compileWhere(parseWhere([{ path: '/radius', op: 'gt', value: 5 }]))!;
    let best = Infinity;
    let n = 0;
    for (let k = 0; k < 3; k++) {
      const t = performance.now();
      n = 0;
      for (const e of many) if (f(e)) n++;
      best = Math.min(best, performance.now() - t);
    }
    expect(n).toBe(400_000);
    expect(best).toBeLessThan(100);
  });
});
