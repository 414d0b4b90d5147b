// @linework/dxf: DXF bytes <-> document model.
export * from './types.js';
export type * from './document-api.js';
export { DxfError } from './errors.js';
export { DxfDocument, entityTree, isModelSpaceName, isPaperSpaceName, isActivePaperSpaceName } from './document.js';
export { registerDef, getDef, declaredTypes } from './defs/registry.js';
export { dictEntries, type DictEntry } from './defs/objects.js';
export { readDxf, readDxfSync, type ReadOptions } from './reader/read.js';
export { writeDxf, writeDxfWithResult, writeDxfChunks, saveDxf, saveDxfSync, type WriteOptions, type WriteResult } from './writer/write.js';
export { writeFileAtomicSync, writeAll, removeStaleTempFiles } from './writer/atomic-file.js';
export { ACI_RGB, nearestAci } from './convert/colors.js';
export { convert, resolveVersion, type ConvertResult } from './convert/convert.js';
export { newDocument } from './template/new-document.js';
export { readTags, type ReadTagsOptions } from './tags/read-tags.js';
export type { DxfInput } from './tags/source.js';
export { infoCommand, convertCommand, documentInfo, INFO_USAGE, CONVERT_USAGE, type CommandIO } from './cli-commands.js';
export * from './entities/index.js';
export * from './geometry/index.js';
