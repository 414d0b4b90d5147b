import { describe, expect, it } from 'vitest';
import { isCi, skipWithoutEzdxf } from './helpers.js';

describe('ezdxf test gating', () => {
  it('skips the ezdxf comparisons only outside CI', () => {
    const missing = () => false;
    expect(skipWithoutEzdxf({}, missing)).toBe(true);
    expect(skipWithoutEzdxf({ CI: 'true' }, missing)).toBe(false);
    expect(skipWithoutEzdxf({ CI: '1' }, missing)).toBe(false);
    expect(skipWithoutEzdxf({ CI: 'false' }, missing)).toBe(true);
    expect(skipWithoutEzdxf({}, () => true)).toBe(false);
    expect(isCi({ CI: '' })).toBe(false);
  });
});
