// The declarations this package makes itself (table entries, BLOCK/ENDBLK, the engine's objects).
export * from './tables.js';
export * from './blocks.js';
export * from './objects.js';
export { registerDef, getDef, declaredTypes } from './registry.js';
