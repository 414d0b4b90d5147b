// INSERT of a drawing file (AutoCAD's INSERT with a file name): the file's model space becomes a
// block definition named after the file, through the same dependency closure as entities_copy_to
// (store/closure.ts), with the file's $INSBASE as base point; then the block is inserted. A block
// of that name the drawing has is used as it is ("duplicate definitions ignored"), the file is not
// read again.
import { basename, extname } from 'node:path';
import type { DocumentApi } from '../dxf.js';
import type { Transaction } from '../store/document-store.js';
import type { Workspace } from '../workspace.js';
import { copyEntities, type Dependencies } from '../store/closure.js';
import { readDocument } from './documents.js';

/** An INSERT name that is a drawing file rather than a block (door.dxf, parts/bolt.DWG). */
export function isDrawingFile(name: string): boolean {
  return /\.(dxf|dwg)$/i.test(name);
}

/** The block a drawing file is inserted as: its file name without the extension. */
export function blockNameOfFile(name: string): string {
  return basename(name, extname(name));
}

/** Reads the file, unless the drawing has its block already (then it is not needed). */
export async function drawingForInsert(workspace: Workspace, doc: DocumentApi, name: string): Promise<DocumentApi | undefined> {
  if (doc.getBlock(blockNameOfFile(name))) return undefined;
  return (await readDocument(workspace, name)).doc;
}

export interface DrawingBlock {
  block: string;
  /** Empty when the drawing had the block: it was used as it is. */
  dependencies: Partial<Dependencies>;
  kept: boolean;
}

/** The block of a drawing file in the transaction's drawing, defined from `file` when missing. */
export function blockFromDrawing(tx: Transaction, name: string, file: DocumentApi | undefined): DrawingBlock {
  const block = blockNameOfFile(name);
  const have = tx.doc.getBlock(block);
  if (have || !file) return { block: have?.name ?? block, dependencies: {}, kept: true };
  const b = file.getHeader('$INSBASE');
  const base = Array.isArray(b) ? (b as number[]) : [0, 0, 0];
  tx.addBlock(block, [base[0] ?? 0, base[1] ?? 0, base[2] ?? 0]);
  const copied = copyEntities(file, file.modelSpace().entities, tx, { into: block });
  return { block, dependencies: copied.dependencies, kept: false };
}
