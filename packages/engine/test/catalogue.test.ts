// The catalogue: every route of the spec's table is declared once, with its status and wrapper
// flag; capabilities describe every op; fromHttp mappers parse queries as the spec says.
import { describe, expect, it } from 'vitest';
import { Engine, OpError, WRAPPED_PASSTHROUGH, type HttpRoute } from '../src/index.js';

const e = new Engine({ empty: true, appVersion: '1.2.3' });

function route(method: string, path: string): { op: string; r: HttpRoute } {
  for (const op of e.catalogue) for (const r of op.http) if (r.method === method && r.path === path) return { op: op.name, r };
  throw new Error(`no route ${method} ${path}`);
}

const SPEC: [string, string, string, number, boolean][] = [
  ['GET', '/ready', 'ready', 200, false],
  ['GET', '', 'ready', 200, false],
  ['GET', '/capabilities', 'capabilities', 200, false],
  ['GET', '/state', 'state', 200, false],
  ['GET', '/documents', 'state', 200, false],
  ['POST', '/documents', 'document_open', 201, false],
  ['DELETE', '/documents/{id}', 'document_close', 200, false],
  ['GET', '/sysvars', 'sysvars', 200, false],
  ['POST', '/sysvars', 'sysvars', 200, false],
  ['POST', '/layouts', 'layout_create', 201, false],
  ['PUT', '/layouts/{layout}/page-setup', 'page_setup', 200, false],
  ['POST', '/entities/copy-to', 'entities_copy_to', 201, false],
  ['POST', '/groups', 'group_create', 201, true],
  ['POST', '/selection-sets', 'selection_set_create', 201, true],
  ['GET', '/selection-sets/{name}', 'selection_set_recall', 200, false],
  ['GET', '/entities', 'entities_list', 200, false],
  ['GET', '/entities/{handle}', 'entity_get', 200, false],
  ['POST', '/entities', 'entities_create', 201, false],
  ['DELETE', '/entities', 'entities_delete', 200, true],
  ['POST', '/entities/transform', 'entities_transform', 200, true],
  ['GET', '/entities/{handle}/xdata', 'xdata_get', 200, false],
  ['PUT', '/entities/{handle}/xdata/{app}', 'xdata_set', 200, true],
  ['DELETE', '/entities/{handle}/xdata/{app}', 'xdata_delete', 200, false],
  ['POST', '/blocks', 'block_define', 201, true],
  ['DELETE', '/blocks/{name}', 'block_delete', 200, true],
  ['POST', '/file-identity', 'file_identity', 200, false],
  ['POST', '/plot', 'plot', 200, true],
  ['POST', '/wblock', 'wblock', 200, true],
  ['POST', '/images', 'embed_image', 201, true],
  ['POST', '/commands', 'command', 200, false],
  ['POST', '/undo', 'undo', 200, false],
  ['POST', '/redo', 'redo', 200, false],
  ['POST', '/save', 'save', 200, false],
  ['GET', '/layers', 'layers', 200, false],
  ['GET', '/header', 'header', 200, false],
  ['GET', '/records', 'records', 200, false],
];

describe('catalogue', () => {
  it.each(SPEC)('%s %s -> %s', (method, path, op, status, wrapper) => {
    const found = route(method, path);
    expect(found.op).toBe(op);
    expect(found.r.status).toBe(status);
    expect(found.r.wrapper).toBe(wrapper);
  });

  it('declares each route once and each op once', () => {
    const keys = e.catalogue.flatMap((o) => o.http.map((r) => `${r.method} ${r.path}`));
    expect(new Set(keys).size).toBe(keys.length);
    const names = e.catalogue.map((o) => o.name);
    expect(new Set(names).size).toBe(names.length);
    expect(keys.length).toBe(SPEC.length);
  });

  it('has every op of the /{op} passthrough lists', () => {
    for (const n of [...WRAPPED_PASSTHROUGH, 'user_select', 'operation', 'cancel', 'events']) expect(e.ops.has(n), n).toBe(true);
  });

  it('capabilities give a JSON schema per op and the limits', async () => {
    const r = await e.dispatch({ protocol: 1, op: 'capabilities' });
    expect(r.ok).toBe(true);
    const c = r.result as { ops: { name: string; input: { type?: string; properties?: Record<string, unknown> } }[]; limits: Record<string, number> };
    expect(c.ops.length).toBe(e.catalogue.length);
    for (const op of c.ops) expect(op.input.type, op.name).toBe('object');
    const create = c.ops.find((o) => o.name === 'entities_create')!;
    expect(Object.keys(create.input.properties!)).toContain('entities');
    expect(c.limits.body_bytes).toBe(16777216);
    expect(c.limits.entities_max_limit).toBeGreaterThan(0);
  });

  describe('fromHttp mappers', () => {
    const map = (method: string, path: string, input: { params?: Record<string, string>; query?: Record<string, string>; body?: unknown }) =>
      route(method, path).r.fromHttp!({ params: input.params ?? {}, query: input.query ?? {}, body: input.body ?? {} });

    it('GET /entities: bounds only with exactly four numbers; near/contains_point drop non-numbers; lists', () => {
      expect(map('GET', '/entities', { query: { bounds: '0,0,10,10' } }).bounds).toEqual([0, 0, 10, 10]);
      expect(map('GET', '/entities', { query: { bounds: '0,0,10' } }).bounds).toBeUndefined();
      expect(map('GET', '/entities', { query: { bounds: '0,0,10,x' } }).bounds).toBeUndefined();
      expect(map('GET', '/entities', { query: { near: '1,x,2,3' } }).near).toEqual([1, 2, 3]);
      expect(map('GET', '/entities', { query: { contains_point: 'a,5,6' } }).contains_point).toEqual([5, 6]);
      expect(map('GET', '/entities', { query: { fields: 'radius,center', handles: '1A,2B', intersections: '3C' } }))
        .toMatchObject({ fields: ['radius', 'center'], handles: ['1A', '2B'], intersections: ['3C'] });
      expect(map('GET', '/entities', { query: { offset: '5', limit: '7', type: 'Circle', layer: 'A', detail: 'full' } }))
        .toMatchObject({ offset: '5', limit: '7', type: 'Circle', layer: 'A', detail: 'full' });
    });

    it('GET /entities: invalid where throws invalid_where before any op runs', () => {
      expect(() => map('GET', '/entities', { query: { where: '[{' } })).toThrow(OpError);
      try {
        map('GET', '/entities', { query: { where: 'nope' } });
      } catch (err) {
        expect((err as OpError).code).toBe('invalid_where');
      }
      expect(map('GET', '/entities', { query: { where: '[{"path":"/radius","op":"gt","value":5}]' } }).where)
        .toEqual([{ path: '/radius', op: 'gt', value: 5 }]);
    });

    it('boolean queries accept true and 1 only', () => {
      expect(map('DELETE', '/documents/{id}', { params: { id: '2' }, query: { discard: '1' } })).toEqual({ document_id: 2, discard: true });
      expect(map('DELETE', '/documents/{id}', { params: { id: '2' }, query: { discard: 'yes' } }).discard).toBe(false);
      expect(map('DELETE', '/blocks/{name}', { params: { name: 'B' }, query: { force: 'true' } })).toEqual({ name: 'B', force: true });
      expect(map('GET', '/selection-sets/{name}', { params: { name: 'S' }, query: {} })).toEqual({ name: 'S', select: false });
    });

    it('GET /sysvars: names comma list, empty when absent', () => {
      expect(map('GET', '/sysvars', { query: { names: 'CLAYER, LTSCALE' } })).toEqual({ get: ['CLAYER', 'LTSCALE'] });
      expect(map('GET', '/sysvars', {})).toEqual({ get: [] });
    });

    it('DELETE /entities: query handles, else body handles', () => {
      expect(map('DELETE', '/entities', { query: { handles: 'A,B' }, body: { handles: ['C'] } })).toEqual({ handles: ['A', 'B'] });
      expect(map('DELETE', '/entities', { body: { handles: ['C'] } })).toEqual({ handles: ['C'] });
    });

    it('PUT xdata: array body, null or invalid body means empty array', () => {
      const p = { handle: '1F', app: 'MYAPP' };
      expect(map('PUT', '/entities/{handle}/xdata/{app}', { params: p, body: [{ code: 1000, value: 'x' }] }).items).toEqual([{ code: 1000, value: 'x' }]);
      expect(map('PUT', '/entities/{handle}/xdata/{app}', { params: p, body: null }).items).toEqual([]);
      expect(map('PUT', '/entities/{handle}/xdata/{app}', { params: p, body: {} }).items).toEqual([]);
    });

    it('POST /documents: template first, else path, else new', () => {
      expect(map('POST', '/documents', { body: { template: 't.dxf', path: 'p.dxf' } })).toEqual({ template: 't.dxf' });
      expect(map('POST', '/documents', { body: { path: 'p.dxf' } })).toEqual({ path: 'p.dxf' });
      expect(map('POST', '/documents', { body: [] })).toEqual({});
    });
  });
});
