// What screens need of a drawing, as ops every client can call: the display list as typed arrays
// (`display_list`), object snaps (`snap`) and the answer to a pending pick (`answer`). The web
// editor uses nothing else, so a script can do whatever the user does on screen.
import { dirname } from 'node:path';
import { z } from 'zod';
import { OpError } from '../protocol.js';
import { linkedImages } from '../plot/linked-images.js';
import { encodeDisplayList } from '../render/encode.js';
import { findLayout } from '../render/layouts.js';
import { renderLayout } from '../render/renderer.js';
import { DEFAULT_SNAP_MODES, PICK_FIELDS, SNAP_MODES, entitiesInBox, pickAt, snapAt } from '../query/picks.js';
import { selectionEntry } from './entities.js';
import { publicType } from '../model.js';
import { defineOp } from './types.js';
import { point } from '../entities/create.js';
import { handlesOut, pointOut } from './output-parts.js';

const DARK = 0x212830;


export const displayList = defineOp({
  name: 'display_list',
  summary: 'The display list of a layout as typed arrays (segments, triangles, texts, images), as the plots draw it; `handles` renders only those entities.',
  input: z.object({
    layout: z.string().optional().describe('Model (default) or a paper-space layout name'),
    handles: z.array(z.string()).max(100_000).optional().describe('only these top-level entities (a screen updating what changed)'),
    background: z.number().int().min(0).max(0xffffff).optional().describe('screen colour 0xRRGGBB (ACI 7 draws in its contrast); default dark 0x212830'),
    tolerance: z.number().positive().optional().describe('chord tolerance for curves in drawing units (default: the extents / 4000; a screen sends about half a pixel, and passes back the full list\'s for parts)'),
    bounds: z.tuple([z.number(), z.number(), z.number(), z.number()]).optional().describe('model space: only the entities whose box meets [x1, y1, x2, y2] (a screen zoomed in)'),
    origin: z.tuple([z.number(), z.number()]).optional().describe('what coordinates are relative to (default the centre of the extents)'),
  }),
  mutates: false,
  effect: 'read',
  permissions: ['drawings:read'],
  needsDocument: true,
  output: z.looseObject({ document_id: z.number().int(), version: z.number().int(), layout: z.string(), handles: handlesOut, layers: z.array(z.string()), segments: z.number().int(), triangles: z.number().int() }),
  mcpGroup: 'session',
  http: [],
  mcp: false,
  errors: ['unknown_layout', 'budget_exceeded'],
  handler: async (ctx, input) => {
    const store = ctx.store!;
    const layout = findLayout(store.doc, input.layout);
    if (!layout) throw new OpError('unknown_layout', `no layout named ${JSON.stringify(input.layout)}`, { layout: input.layout });
    const baseDir = store.path ? dirname(store.path) : undefined;
    const images = await linkedImages(store.doc, ctx.engine.workspace, baseDir);
    const model = layout.block.name.toUpperCase() === '*MODEL_SPACE';
    let handles = input.handles ? new Set(input.handles.map((h) => h.toUpperCase())) : undefined;
    if (input.bounds && model) {
      const [x0, y0, x1, y1] = input.bounds;
      const inBox = new Set(store.index.search(Math.min(x0, x1), Math.min(y0, y1), Math.max(x0, x1), Math.max(y0, y1)).map((it) => it.handle));
      handles = handles ? new Set([...handles].filter((h) => inBox.has(h))) : inBox;
    }
    // the model's own extents (the header's are often missing or stale)
    const ext = model ? store.index.extents() : null;
    const tolerance = input.tolerance ?? (ext ? Math.max(ext.max[0] - ext.min[0], ext.max[1] - ext.min[1]) / 4000 || undefined : undefined);
    const list = renderLayout(store.doc, { layout: layout.name, baseDir, images, honorPlotFlag: false, background: input.background ?? DARK, tolerance, handles });
    // text lower than two chords is unreadable where this tolerance is a third of a pixel: a finer
    // regen (a screen zoomed in) brings it
    const tol = list.tolerance ?? 0;
    const enc = encodeDisplayList(list, { layout: layout.name, tolerance: tol, origin: input.origin, minTextHeight: 2 * tol });
    return { document_id: store.id, version: store.version, ...enc };
  },
});

export const snap = defineOp({
  name: 'snap',
  summary: 'The object snap nearest a point (endpoint, midpoint, center, quadrant, intersection, perpendicular, tangent, nearest, node, insertion, extension): {point, aperture} -> {snap: {point, kind, handle} | null}.',
  input: z.object({
    point: point.describe('the cursor in drawing units'),
    aperture: z.number().positive().describe('search radius in drawing units (the editor sends its pick box)'),
    modes: z.array(z.enum(SNAP_MODES)).optional().describe('running snaps (default all but tangent and extension)'),
    base: point.optional().describe('the point the pick started from (for perpendicular and tangent)'),
    acquired: z.array(z.string()).max(7).optional().describe('extension: handles of the entities whose end points the cursor rested on (their extensions snap from afar)'),
    layout: z.string().optional(),
  }),
  mutates: false,
  effect: 'read',
  permissions: ['drawings:read'],
  needsDocument: true,
  output: z.object({ snap: z.looseObject({ point: pointOut, kind: z.string(), handle: z.string().optional() }).nullable() }),
  mcpGroup: 'session',
  http: [],
  // the editor's: a pointer's snap, a pick's answer (agents ask with user_select / getpoint)
  mcp: false,
  handler: (ctx, input) => {
    const p = input.point as number[];
    return { snap: snapAt(ctx.store!, p, input.aperture, input.modes ?? DEFAULT_SNAP_MODES, input.base as number[] | undefined, input.layout, input.acquired) };
  },
});

export const pick = defineOp({
  name: 'pick',
  summary: 'The visible entities at a point or in a window (without changing the selection): {point, aperture} or {window, crossing?} -> {handles, types}.',
  input: z.object({ point: point.optional().describe('the visible entity nearest this point within `aperture`'), ...PICK_FIELDS }),
  mutates: false,
  effect: 'read',
  permissions: ['drawings:read'],
  needsDocument: true,
  output: z.object({ handles: handlesOut }),
  mcpGroup: 'session',
  http: [],
  handler: (ctx, input) => {
    const s = ctx.store!;
    // the types let the editor refuse what a user_select's `types` excludes, at the cursor
    const found = input.window ? entitiesInBox(s, input.window, input.crossing ?? false, input.layout) : [];
    if (!input.window) {
      if (!input.point) throw new OpError('invalid_request', 'pick: give `point` (with `aperture`) or `window`');
      const e = pickAt(s, input.point as number[], input.aperture ?? 0, input.layout);
      if (e) found.push(e);
    }
    return { handles: found.map((e) => e.handle), types: found.map((e) => publicType(e.type)) };
  },
});

export const answer = defineOp({
  name: 'answer',
  summary: 'Answers a pending user_select (handles) or getpoint (point) by its request_id: what the graphical editor sends when the user picks.',
  input: z.object({
    id: z.string().min(1).describe('request_id of the pending operation'),
    point: point.optional().describe('getpoint: the picked point'),
    handles: z.array(z.string()).optional().describe('user_select: the picked entities'),
  }),
  mutates: false,
  effect: 'change',
  permissions: ['drawings:read'],
  needsDocument: false,
  output: z.object({ answered: z.string(), op: z.string(), result: z.unknown() }),
  mcpGroup: 'session',
  control: true,
  http: [],
  // the editor's: a pointer's snap, a pick's answer (agents ask with user_select / getpoint)
  mcp: false,
  errors: ['unknown_operation', 'invalid_request', 'entity_absent'],
  handler: (ctx, input) => {
    const engine = ctx.engine;
    const rec = engine.pendingPrompts().find((r) => r.request_id === input.id);
    if (!rec) throw new OpError('unknown_operation', `no pending pick with request_id ${input.id}`);
    const store = rec.document_id !== null ? engine.documents.get(rec.document_id) ?? null : null;
    const prompt: Record<string, unknown> = engine.promptOf(input.id) ?? {};
    let result: Record<string, unknown>;
    if (rec.op === 'getpoint') {
      if (!input.point) throw new OpError('invalid_request', 'getpoint is answered with `point`');
      const [x, y, z0] = input.point as number[];
      result = { point: [x!, y!, z0 ?? 0] };
    } else {
      if (!input.handles) throw new OpError('invalid_request', 'user_select is answered with `handles`');
      if (!store) throw new OpError('document_closed', 'the document of the pick was closed');
      const entries = [...new Set(input.handles.map((h) => h.toUpperCase()))].map((h) => {
        const e = selectionEntry(store, h);
        if (!e) throw new OpError('entity_absent', `no entity ${h}`, { handle: h });
        return e;
      });
      const types = Array.isArray(prompt.types) ? (prompt.types as string[]).map((t) => t.toLowerCase()) : null;
      if (types) {
        const wrong = entries.find((e) => !types.includes(String(e.type).toLowerCase()));
        if (wrong) throw new OpError('invalid_request', `${wrong.handle} is a ${wrong.type}; pick ${(prompt.types as string[]).join(' or ')}`);
      }
      if (typeof prompt.count === 'number' && entries.length !== prompt.count) {
        throw new OpError('invalid_request', `pick ${prompt.count} entit${prompt.count === 1 ? 'y' : 'ies'}, not ${entries.length}`);
      }
      result = { count: entries.length, handles: entries.map((e) => e.handle), entities: entries };
    }
    engine.answer(input.id, result);
    return { answered: input.id, op: rec.op, result };
  },
});

export const DISPLAY_OPS = [displayList, pick, snap, answer];
