// The op catalogue: one list, from which come the dispatcher's table, the HTTP routes, the MCP
// tools, GET /capabilities and the OpenAPI document.
import type { EngineOp } from './types.js';
import { SESSION_OPS } from './session.js';
import { DOCUMENT_OPS } from './documents.js';
import { SYSVAR_OPS } from './sysvars.js';
import { ENTITY_OPS } from './entities.js';
import { XDATA_OPS } from './xdata.js';
import { BLOCK_OPS } from './blocks.js';
import { PLOT_OPS } from './plot.js';
import { COMMAND_OPS } from './commands.js';
import { auditOp } from './audit.js';
import { DISPLAY_OPS } from './display.js';
import { LAYER_OPS } from './layers.js';
import { CONSTRUCT_MORE_OPS } from '../construct-more/ops.js';
import { MODIFY_GEOMETRY_OPS } from './modify.js';
import { FILE_OPS } from './files.js';
import { CLIPBOARD_OPS } from './clipboard.js';

export function buildCatalogue(): EngineOp[] {
  const list = [...SESSION_OPS, ...DOCUMENT_OPS, ...SYSVAR_OPS, ...ENTITY_OPS, ...CLIPBOARD_OPS, ...XDATA_OPS, ...BLOCK_OPS, ...PLOT_OPS, ...COMMAND_OPS, auditOp, ...DISPLAY_OPS, ...LAYER_OPS,
    ...MODIFY_GEOMETRY_OPS, ...CONSTRUCT_MORE_OPS, ...FILE_OPS];
  const seen = new Set<string>();
  for (const op of list) {
    if (seen.has(op.name)) throw new Error(`op ${op.name} declared twice`);
    seen.add(op.name);
  }
  return list;
}

/** Ops the spec runs through the mutation wrapper on `POST /{op}`. */
export const WRAPPED_PASSTHROUGH = [
  'entities_create', 'entities_delete', 'entities_transform', 'block_define', 'block_delete', 'file_identity', 'xdata_set',
  'view_focus', 'wblock', 'plot', 'embed_image', 'set_properties', 'property', 'activate', 'get_selection', 'getpoint',
];
