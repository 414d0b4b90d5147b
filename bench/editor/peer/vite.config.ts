// Builds the dxf-viewer peer page for the editor benchmark into bench/out/editor-peer.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  logLevel: 'warn',
  build: { outDir: fileURLToPath(new URL('../../out/editor-peer', import.meta.url)), emptyOutDir: true, target: 'es2022', assetsInlineLimit: 0, chunkSizeWarningLimit: 4096 },
  worker: { format: 'es' },
  // dxf-viewer imports opentype.js's default export, which only its UMD build has
  resolve: { alias: [{ find: /^opentype\.js$/, replacement: fileURLToPath(new URL('../../../node_modules/opentype.js/dist/opentype.js', import.meta.url)) }] },
});
