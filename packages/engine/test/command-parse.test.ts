// Command-line input: coordinate forms and splitting.
import { describe, expect, it } from 'vitest';
import { OpError, parsePoint, splitCommands } from '../src/index.js';

const close = (a: number[], b: number[]) => a.forEach((x, i) => expect(x).toBeCloseTo(b[i]!, 9));

describe('coordinate input', () => {
  it('absolute x,y and x,y,z', () => {
    expect(parsePoint('1,2', null)).toEqual([1, 2, 0]);
    expect(parsePoint('-1.5,2e1,3', null)).toEqual([-1.5, 20, 3]);
  });
  it('relative @dx,dy to the last point', () => {
    expect(parsePoint('@3,4', [1, 1, 0])).toEqual([4, 5, 0]);
    expect(parsePoint('@', [1, 1, 0])).toEqual([1, 1, 0]);
    expect(parsePoint('@2,3', null)).toEqual([2, 3, 0]); // LASTPOINT starts at the origin
  });
  it('polar @d<angle and d<angle', () => {
    close(parsePoint('@10<90', [1, 1, 0]), [1, 11, 0]);
    close(parsePoint('@2<180', [0, 0, 0]), [-2, 0, 0]);
    close(parsePoint('5<0', null), [5, 0, 0]);
  });
  it('invalid points fail with invalid_point', () => {
    for (const [t, last] of [['1', null], ['a,b', null], ['@x', null], ['1,2,3,4', null], ['@5<x', [0, 0, 0]], [undefined, null]] as const) {
      try {
        parsePoint(t as string | undefined, last as never);
        throw new Error(`accepted ${t}`);
      } catch (err) {
        expect((err as OpError).code, String(t)).toBe('invalid_point');
      }
    }
  });
  it('splits commands on lines and ;, keeps quoted text', () => {
    expect(splitCommands('LINE 0,0 1,1\nCIRCLE 0,0 5; ERASE L')).toEqual([['LINE', '0,0', '1,1'], ['CIRCLE', '0,0', '5'], ['ERASE', 'L']]);
    expect(splitCommands('TEXT 0,0 2.5 0 "hello  world"')).toEqual([['TEXT', '0,0', '2.5', '0', 'hello  world']]);
    expect(splitCommands('  \n ; ')).toEqual([]);
  });
});
