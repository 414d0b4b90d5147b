// The answer every construct/modify op gives: what it created, changed and erased, by handle.
import { z } from 'zod';

export const editResult = z.object({
  created: z.array(z.string()).describe('handles of the entities the op created'),
  modified: z.array(z.string()).describe('handles of the entities the op changed in place'),
  erased: z.array(z.string()).describe('handles of the entities the op erased'),
});

export type EditResult = z.infer<typeof editResult>;

export function emptyEdit(): EditResult {
  return { created: [], modified: [], erased: [] };
}
