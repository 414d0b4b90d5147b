// Extended entity data per application. Writing under an application that is not in the APPID
// table registers it (as ezdxf's set_xdata leaves to the caller; AutoCAD needs it registered).
import { z } from 'zod';
import { OpError } from '../protocol.js';
import { entityOrThrow, findEntry } from '../model.js';
import { xdataItems } from '../query/serialize.js';
import { registerApp, xdataTags } from './entities.js';
import { defineOp, q } from './types.js';

const item = z.object({ code: z.number().int(), value: z.unknown() });

export const xdataGet = defineOp({
  name: 'xdata_get',
  summary: 'Extended data of an entity: `items[]`, each with `xdata` mapping the application name to its values (and `raw` {code, value} items).',
  input: z.object({ handle: z.string().min(1), app: z.string().optional().describe('only this application') }),
  mutates: false,
  effect: 'read',
  permissions: ['drawings:read'],
  needsDocument: true,
  output: z.object({ items: z.array(z.object({ handle: z.string(), xdata: z.record(z.string(), z.array(z.unknown())), raw: z.record(z.string(), z.array(z.object({ code: z.number().int(), value: z.unknown() }))) })), count: z.number().int() }),
  mcpGroup: 'data',
  http: [{
    method: 'GET', path: '/entities/{handle}/xdata', status: 200, wrapper: false,
    fromHttp: ({ params, query }) => ({ handle: params.handle, ...(query.app ? { app: query.app } : {}) }),
  }],
  errors: ['entity_absent'],
  handler: (ctx, input) => {
    const e = entityOrThrow(ctx.store!.doc, input.handle);
    const xdata: Record<string, unknown[]> = {};
    const raw: Record<string, { code: number; value: unknown }[]> = {};
    for (const g of e.xdata ?? []) {
      if (input.app && g.app.toLowerCase() !== input.app.toLowerCase()) continue;
      const items = xdataItems(g.tags);
      raw[g.app] = items;
      xdata[g.app] = items.map((i) => i.value);
    }
    if (input.app && !Object.keys(xdata).length) { xdata[input.app] = []; raw[input.app] = []; }
    return { items: [{ handle: e.handle, xdata, raw }], count: 1 };
  },
});

export const xdataSet = defineOp({
  name: 'xdata_set',
  summary: 'Replaces an entity\'s xdata of one application with {code, value} items (the APPID is registered when missing).',
  input: z.object({ handle: z.string().min(1), app: z.string().min(1), items: z.array(item).default([]) }),
  mutates: true,
  effect: 'change',
  permissions: ['drawings:write'],
  needsDocument: true,
  output: z.object({ handle: z.string(), app: z.string(), count: z.number().int() }),
  mcpGroup: 'data',
  example: { handle: '2F', app: 'MYAPP', items: [{ code: 1000, value: 'room 12' }] },
  http: [{
    method: 'PUT', path: '/entities/{handle}/xdata/{app}', status: 200, wrapper: true,
    fromHttp: ({ params, body }) => {
      const b = body as unknown;
      const items = Array.isArray(b) ? b : b && typeof b === 'object' && Array.isArray((b as Record<string, unknown>).items) ? (b as Record<string, unknown>).items : [];
      const extra = b && typeof b === 'object' && !Array.isArray(b) ? q.body(b) : {};
      delete extra.items;
      return { ...extra, handle: params.handle, app: params.app, items };
    },
  }],
  errors: ['entity_absent', 'invalid_xdata', 'unknown_app'],
  handler: (ctx, input) => {
    const tx = ctx.tx!;
    const e = entityOrThrow(tx.doc, input.handle);
    const tags = xdataTags(input.items);
    const size = tags.reduce((n, t) => n + t[1].length + 4, 0);
    if (size > 16000) throw new OpError('invalid_xdata', `xdata of one entity is limited to 16 KB (${size} bytes given)`);
    const app = registerApp(tx, input.app);
    tx.touch(e);
    const groups = (e.xdata ?? []).filter((g) => g.app.toLowerCase() !== app.toLowerCase());
    groups.push({ app, tags });
    e.xdata = groups;
    return { handle: e.handle, app, count: input.items.length };
  },
});

export const xdataDelete = defineOp({
  name: 'xdata_delete',
  summary: 'Removes an entity\'s xdata of one application (reading it then gives an empty array).',
  input: z.object({ handle: z.string().min(1), app: z.string().min(1) }),
  mutates: true,
  effect: 'change',
  permissions: ['drawings:write'],
  needsDocument: true,
  output: z.object({ handle: z.string(), app: z.string(), removed: z.boolean(), items: z.array(z.unknown()) }),
  mcpGroup: 'data',
  http: [{
    method: 'DELETE', path: '/entities/{handle}/xdata/{app}', status: 200, wrapper: false,
    fromHttp: ({ params }) => ({ handle: params.handle, app: params.app }),
  }],
  errors: ['entity_absent'],
  handler: (ctx, input) => {
    const tx = ctx.tx!;
    const e = entityOrThrow(tx.doc, input.handle);
    const had = (e.xdata ?? []).some((g) => g.app.toLowerCase() === input.app.toLowerCase());
    if (had) {
      tx.touch(e);
      e.xdata = (e.xdata ?? []).filter((g) => g.app.toLowerCase() !== input.app.toLowerCase());
      if (!e.xdata.length) delete e.xdata;
    }
    return { handle: e.handle, app: findEntry(tx.doc, 'APPID', input.app) ? input.app : input.app, removed: had, items: [] };
  },
});

export const XDATA_OPS = [xdataGet, xdataSet, xdataDelete];
