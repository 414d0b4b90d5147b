// The handle index against a Map: same answers for any mix of sets, deletes and odd handles.
import { describe, expect, it } from 'vitest';
import { HandleIndex } from '../src/handle-index.js';
import type { DxfRecord } from '../src/types.js';

const rec = (handle: string): DxfRecord => ({ type: 'LINE', handle, owner: '', attrs: {} });

describe('handle index', () => {
  it('behaves like a Map of handle strings under sets, overwrites and deletes', () => {
    const index = new HandleIndex();
    const model = new Map<string, DxfRecord>();
    let seed = 7;
    const rnd = (n: number): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    // dense handles make long probe runs, so deletes must keep later entries findable
    const odd = ['00AB', 'ab', '0', 'FFFFFFFFFFFFFFFF', '1234567890ABCD', 'G1', ' 5'];
    const handle = (): string => (rnd(10) === 0 ? odd[rnd(odd.length)]! : (1 + rnd(5000)).toString(16).toUpperCase());
    for (let step = 0; step < 60000; step++) {
      const h = handle();
      if (rnd(3) === 0) expect(index.delete(h)).toBe(model.delete(h));
      else {
        const r = rec(h);
        index.set(h, r);
        model.set(h, r);
      }
      if (step % 5000 === 0) {
        expect(index.size).toBe(model.size);
        for (const [k, v] of model) expect(index.get(k)).toBe(v);
      }
    }
    for (let v = 1; v < 6000; v++) {
      const h = v.toString(16).toUpperCase();
      expect(index.get(h)).toBe(model.get(h));
      expect(index.has(h)).toBe(model.has(h));
    }
    expect(new Map(index.entries())).toEqual(model);
    const nums: number[] = [];
    const strs: string[] = [];
    index.forEachValue((n) => nums.push(n), (s) => strs.push(s));
    expect([...nums.map((n) => n.toString(16).toUpperCase()), ...strs].sort()).toEqual([...model.keys()].sort());
  });

  it('claims a handle for its first record only, over runs of consecutive handles anywhere in 32 bits', () => {
    const index = new HandleIndex();
    const model = new Map<string, DxfRecord>();
    // runs of consecutive handles share table lines: runs starting anywhere must not collide for good
    for (let r = 0; r < 300; r++) {
      const base = Math.imul(r + 1, 0x9e3779b1) >>> 0;
      for (let k = 0; k < 37; k++) {
        const v = (base + k) >>> 0;
        if (v === 0) continue;
        const h = v.toString(16).toUpperCase();
        const first = rec(h);
        expect(index.claim(h, first)).toBe(!model.has(h));
        if (!model.has(h)) model.set(h, first);
        expect(index.claim(h, rec(h))).toBe(false);
        expect(index.claim(h, model.get(h)!)).toBe(true);
      }
    }
    expect(index.claim('00ab', rec('00ab'))).toBe(true);
    expect(index.claim('00ab', rec('00ab'))).toBe(false);
    model.set('00ab', index.get('00ab')!);
    let n = 0;
    for (const h of [...model.keys()]) {
      if (n++ % 3 === 0) {
        expect(index.delete(h)).toBe(true);
        model.delete(h);
      }
    }
    expect(index.size).toBe(model.size);
    for (const [h, r] of model) expect(index.get(h)).toBe(r);
    expect(new Map(index.entries())).toEqual(model);
  });

  it('keeps "00AB" and "AB" apart, as distinct strings', () => {
    const index = new HandleIndex();
    const a = rec('AB');
    const b = rec('00AB');
    index.set('AB', a);
    index.set('00AB', b);
    expect(index.get('AB')).toBe(a);
    expect(index.get('00AB')).toBe(b);
    expect(index.get('ab')).toBeUndefined();
    expect(index.size).toBe(2);
  });
});
