// Layer state (on, frozen, locked, colour, plot) changed as one undoable step: the `layer_set` op
// (the editor's layers panel) and the command line's LAYER options share `changeLayer`.
import { z } from 'zod';
import { OpError } from '../protocol.js';
import type { TableEntry } from '../dxf.js';
import { currentLayer, findEntry } from '../model.js';
import type { Transaction } from '../store/document-store.js';
import { layerJson } from './documents.js';
import { defineOp } from './types.js';
import { layerOut } from './output-parts.js';

export interface LayerChange {
  on?: boolean;
  frozen?: boolean;
  locked?: boolean;
  /** ACI 1-255. */
  color?: number;
  plot?: boolean;
}

/** Applies a change to one layer (by name, any case); the current layer cannot be frozen. */
export function changeLayer(tx: Transaction, name: string, change: LayerChange, who = 'LAYER'): TableEntry {
  const e = findEntry(tx.doc, 'LAYER', name);
  if (!e) throw new OpError('unknown_layer', `${who}: layer ${name} does not exist`, { layer: name });
  if (change.frozen && String(e.attrs.name).toLowerCase() === currentLayer(tx.doc).toLowerCase()) {
    throw new OpError('invalid_command', `${who}: cannot freeze the current layer ${String(e.attrs.name)}`);
  }
  if (change.color !== undefined && !(Number.isInteger(change.color) && change.color >= 1 && change.color <= 255)) {
    throw new OpError('invalid_command', `${who}: the colour is an ACI number 1-255`);
  }
  tx.touch(e);
  const cur = Number(e.attrs.color ?? 7);
  const on = change.on ?? cur >= 0;
  const aci = change.color ?? (Math.abs(cur) || 7);
  e.attrs.color = on ? aci : -aci;
  let flags = Number(e.attrs.flags ?? 0);
  if (change.frozen !== undefined) flags = change.frozen ? flags | 1 : flags & ~1;
  if (change.locked !== undefined) flags = change.locked ? flags | 4 : flags & ~4;
  e.attrs.flags = flags;
  if (change.plot !== undefined) e.attrs.plot = change.plot ? 1 : 0;
  return e;
}

export const layerSet = defineOp({
  name: 'layer_set',
  summary: 'Turns a layer on or off, freezes, locks or recolours it (one undo step): {name, on?, frozen?, locked?, color?, plot?}.',
  input: z.object({
    name: z.string().min(1),
    on: z.boolean().optional(),
    frozen: z.boolean().optional(),
    locked: z.boolean().optional(),
    color: z.number().int().min(1).max(255).optional().describe('ACI colour number'),
    plot: z.boolean().optional(),
  }),
  mutates: true,
  effect: 'change',
  permissions: ['layers:write'],
  needsDocument: true,
  output: z.object({ layer: layerOut }),
  mcpGroup: 'layers',
  example: { name: 'walls', color: 1, locked: true },
  http: [],
  errors: ['unknown_layer', 'invalid_command'],
  handler: (ctx, input) => {
    const { name, ...change } = input;
    const e = changeLayer(ctx.tx!, name, change, 'layer_set');
    return { layer: layerJson(e, new Map(), currentLayer(ctx.tx!.doc).toLowerCase()) };
  },
});

export const LAYER_OPS = [layerSet];
