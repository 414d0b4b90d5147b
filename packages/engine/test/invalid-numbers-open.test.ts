// document_open of a drawing with values that are not numbers in numeric groups: the damaged-input
// error (invalid_dxf) naming the first, as `linework convert` refuses it without --recover.
import { describe, expect, it } from 'vitest';
import { engine, fails } from './helpers.js';

const fixture = new URL('../../dxf/test/fixtures/invalid_numbers.dxf', import.meta.url).pathname;

describe('document_open of invalid numbers', () => {
  it('answers invalid_dxf with the first one and how many more', async () => {
    const r = await fails(engine(), 'document_open', { path: fixture }, 'invalid_dxf');
    expect(r.error).toMatch(/it is damaged: line 12: header variable \$LTSCALE: group code 40 holds "NaN", which is not a number; read as 0 \(and 4 more\); `linework convert --recover` writes a repaired copy/);
  });
});
