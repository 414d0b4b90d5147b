import { describe, expect, it } from 'vitest';
import { quickVerifyBody, VerifyApiKeyBody } from '../src/schemas.js';

const KEY = `lwk_${'a'.repeat(48)}`;

// Bodies as JSON.parse gives them: the quick check sees nothing else.
const BODIES: unknown[] = [
  { key: KEY },
  { key: KEY, permissions: [] },
  { key: KEY, permissions: ['drawings:read', 'PLOTS:*', ' x '] },
  { key: '', permissions: ['a'] },
  { key: KEY, permissions: ['a'], extra: 1, more: { key: 2 } },
  {},
  { key: 1 },
  { key: null },
  { key: KEY, permissions: null },
  { key: KEY, permissions: 'drawings:read' },
  { key: KEY, permissions: ['a', 1] },
  { key: KEY, permissions: [['a']] },
  { key: KEY, permissions: {} },
  { permissions: ['a'] },
  [],
  [{ key: KEY }],
  'text',
  42,
  null,
  true,
];

describe('quickVerifyBody', () => {
  it.each(BODIES.map((b) => [JSON.stringify(b), b]))('agrees with the schema on %s', (_, body) => {
    const quick = quickVerifyBody(body);
    const parsed = VerifyApiKeyBody.safeParse(body);
    if (quick === undefined) {
      // Unsure is allowed only where the schema refuses: valid bodies must take the quick path.
      expect(parsed.success).toBe(false);
    } else {
      expect(parsed.success).toBe(true);
      expect(quick).toStrictEqual(parsed.data);
    }
  });
});
