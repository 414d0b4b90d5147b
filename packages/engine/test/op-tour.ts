// A tour of the op catalogue: one successful call of every op on a small drawing, in an order
// where each call's preconditions hold. Tests run it to check every answer against its op's
// declared output schema.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import { createEngine, Workspace, type Engine, type GuiBridge, type ProtocolResponse } from '../src/index.js';
import { scratchDir } from '../../dxf/test/helpers.js';

export interface TourStep {
  op: string;
  fields: Record<string, unknown>;
}

/** An engine with a scripted GUI (so the interactive picks answer) over a fresh folder. */
export function tourEngine(): { engine: Engine; root: string; prompts: Record<string, unknown>[] } {
  const root = scratchDir('lw-tour-');
  writeFileSync(join(root, 'pic.png'), new Resvg('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>').render().asPng());
  const prompts: Record<string, unknown>[] = [];
  const gui: GuiBridge = { prompt: (p) => prompts.push(p), dismiss: () => undefined };
  return { engine: createEngine({ appVersion: '9.9.9-test', workspace: new Workspace([root]), gui }), root, prompts };
}

/**
 * Runs the tour; `each` sees every answer. Handles created on the way are read back from the
 * answers, so the steps need no knowledge of how handles are numbered.
 */
export async function runTour(e: Engine, prompts: Record<string, unknown>[], each: (step: TourStep, res: ProtocolResponse) => void): Promise<void> {
  let n = 0;
  const call = async (op: string, fields: Record<string, unknown> = {}): Promise<ProtocolResponse> => {
    const res = await e.dispatch({ protocol: 1, op, request_id: `tour-${++n}`, ...fields });
    each({ op, fields }, res);
    return res;
  };
  const result = (r: ProtocolResponse): any => r.result;
  await call('ready');
  const main = result(await call('document_new')).document_id as number;
  await call('state');
  await call('capabilities');
  const created = result(await call('entities_create', {
    create_layers: true,
    entities: [
      { type: 'Line', start: [0, 0], end: [10, 0], layer: 'walls' },
      { type: 'Circle', center: [5, 5], radius: 2 },
      { type: 'Text', insert: [0, 10], value: 'hello', height: 2.5 },
      { type: 'LWPolyline', points: [[0, 0], [10, 0], [10, 10], [0, 10]], closed: true },
    ],
  }));
  const [line, circle, text, poly] = created.handles as string[];
  await call('entities_list', { limit: 5, detail: 'geometry' });
  await call('entity_get', { handle: line });
  await call('header', { names: ['$ACADVER'] });
  await call('layers');
  await call('records', { collection: 'layers' });
  await call('sysvars', { get: ['LTSCALE'] });
  await call('sysvars', { set: { LTSCALE: 2 } });
  await call('layout_create', { name: 'Sheet2' });
  await call('layout_list');
  await call('page_setup', { layout: 'Sheet2', paper: 'A4', orientation: 'landscape', fit: true });
  await call('entities_transform', { handles: [circle], action: 'move', vector: [1, 1] });
  await call('set_properties', { handles: [text], color: 1 });
  await call('property', { handle: circle, name: 'radius' });
  await call('view_focus', { handles: [line] });
  await call('select', { handles: [line, circle] });
  await call('get_selection');
  await call('selection_set_create', { name: 'pair', handles: [line, circle] });
  await call('selection_set_recall', { name: 'pair' });
  await call('group_create', { name: 'G1', handles: [line, poly] });
  await call('xdata_set', { handle: line, app: 'LINEWORK_TOUR', items: [{ code: 1000, value: 'x' }] });
  await call('xdata_get', { handle: line });
  await call('xdata_delete', { handle: line, app: 'LINEWORK_TOUR' });
  await call('block_define', { name: 'B1', base: [0, 0], handles: [poly] });
  await call('block_list');
  await call('block_rename', { name: 'B1', new_name: 'B2' });
  await call('command', { cmd: 'LINE 0,20 10,20' });
  await call('undo');
  await call('redo');
  await call('file_identity');
  await call('layer_set', { name: 'walls', color: 3 });
  await call('audit');
  await call('display_list');
  await call('pick', { point: [5, 0], aperture: 1 });
  await call('snap', { point: [10.2, 0.1], aperture: 1 });
  await call('preview', { width: 64, height: 64 });
  await call('embed_image', { path: 'pic.png', insert: [20, 0] });
  await call('save', { path: 'tour.dxf' });
  await call('wblock', { path: 'part.dxf', handles: [line] });
  await call('plot', { path: 'tour.pdf' });
  await call('events');
  await call('operation', { id: 'tour-1' });
  const id = result(await call('document_open', { path: 'part.dxf' })).document_id as number;
  await call('entities_copy_to', { handles: [circle], document_id: id, source_document_id: main });
  await call('activate', { document_id: main });
  await call('document_close', { document_id: id, discard: true });
  await call('block_delete', { name: 'B2', force: true });
  await call('purge');
  await call('entities_delete', { handles: [text] });
  // Interactive picks: the scripted GUI gets the prompt, `answer` gives the pick.
  const pending = e.dispatch({ protocol: 1, op: 'getpoint', request_id: 'tour-gp', message: 'a point' });
  await new Promise((r) => setTimeout(r, 0));
  await call('answer', { id: String(prompts.at(-1)?.request_id ?? 'tour-gp'), point: [1, 2] });
  each({ op: 'getpoint', fields: {} }, await pending);
  const pendingSel = e.dispatch({ protocol: 1, op: 'user_select', request_id: 'tour-us' });
  await new Promise((r) => setTimeout(r, 0));
  await call('answer', { id: 'tour-us', handles: [line] });
  each({ op: 'user_select', fields: {} }, await pendingSel);
  const waiting = await call('getpoint', { wait: false });
  await call('cancel', { id: waiting.request_id });
}
