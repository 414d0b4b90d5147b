// Every op's API key permissions, listed here in full: a change of what a key may do shows up as
// a change of this table, never as a side effect of another declaration (such as the effect).
import { describe, expect, it } from 'vitest';
import { DRAWING_PERMISSIONS, Engine } from '../src/index.js';

const PERMISSIONS: Record<string, string[]> = {
  ready: ['drawings:read'],
  state: ['drawings:read'],
  capabilities: ['drawings:read'],
  events: ['drawings:read'],
  operation: ['drawings:read'],
  cancel: ['drawings:read'],
  user_select: ['drawings:read'],
  getpoint: ['drawings:read'],
  activate: ['drawings:read'],
  document_open: ['drawings:read'],
  document_new: ['drawings:read'],
  document_close: ['drawings:delete'],
  save: ['drawings:write'],
  undo: ['drawings:write'],
  redo: ['drawings:write'],
  file_identity: ['drawings:write'],
  header: ['drawings:read'],
  layers: ['layers:read'],
  records: ['drawings:read'],
  sysvars: ['drawings:write'],
  layout_create: ['drawings:write'],
  layout_list: ['drawings:read'],
  page_setup: ['drawings:write'],
  entities_create: ['drawings:write'],
  entities_list: ['drawings:read'],
  entity_get: ['drawings:read'],
  entities_delete: ['drawings:write'],
  entities_transform: ['drawings:write'],
  entities_copy_to: ['drawings:write'],
  clipboard_copy: ['drawings:read'],
  clipboard_cut: ['drawings:write'],
  clipboard_paste: ['drawings:write'],
  set_properties: ['drawings:write'],
  property: ['drawings:read'],
  view_focus: ['drawings:read'],
  get_selection: ['drawings:read'],
  select: ['drawings:read'],
  selection_set_create: ['drawings:read'],
  selection_set_recall: ['drawings:read'],
  group_create: ['drawings:write'],
  xdata_get: ['drawings:read'],
  xdata_set: ['drawings:write'],
  xdata_delete: ['drawings:write'],
  block_define: ['blocks:write'],
  block_delete: ['blocks:write'],
  block_rename: ['blocks:write'],
  block_list: ['blocks:read'],
  purge: ['drawings:write', 'blocks:write', 'layers:write'],
  plot: ['plots:create'],
  wblock: ['plots:create'],
  embed_image: ['drawings:write'],
  preview: ['drawings:read'],
  command: ['drawings:write', 'blocks:write', 'layers:write'],
  audit: ['drawings:write'],
  display_list: ['drawings:read'],
  snap: ['drawings:read'],
  pick: ['drawings:read'],
  answer: ['drawings:read'],
  layer_set: ['layers:write'],
  files_list: ['drawings:read'],
  // construct and modify operations
  offset: ['drawings:write'], trim: ['drawings:write'], extend: ['drawings:write'], fillet: ['drawings:write'],
  chamfer: ['drawings:write'], break: ['drawings:write'], join: ['drawings:write'],
  explode: ['drawings:write'],
  mirror: ['drawings:write'],
  scale: ['drawings:write'],
  array: ['drawings:write'],
  stretch: ['drawings:write'],
  hatch: ['drawings:write'],
  dimension_create: ['drawings:write'],
  // made and rolled back: it leaves the drawing as it was
  modify_preview: ['drawings:read'],
};

const engine = new Engine({ empty: true });

describe('API key permissions of the ops', () => {
  it('every op declares exactly the permissions of this table', () => {
    const declared = Object.fromEntries(engine.catalogue.map((op) => [op.name, [...op.permissions]]));
    expect(declared).toEqual(PERMISSIONS);
  });

  it('names only the permissions of DRAWING_PERMISSIONS (the key service\'s defaults, checked in the server\'s tests)', () => {
    for (const op of engine.catalogue) for (const p of op.permissions) expect(DRAWING_PERMISSIONS, op.name).toContain(p);
  });

  it('every op whose effect reads needs a read permission only', () => {
    for (const op of engine.catalogue.filter((o) => o.effect === 'read')) {
      for (const p of op.permissions) expect(p, op.name).toMatch(/:read$/);
    }
  });

  it('capabilities show each op\'s permissions', async () => {
    const r = await engine.dispatch({ protocol: 1, op: 'capabilities' });
    const ops = (r.result as { ops: { name: string; permissions: string[] }[] }).ops;
    for (const o of ops) expect(o.permissions, o.name).toEqual(PERMISSIONS[o.name]);
  });
});
