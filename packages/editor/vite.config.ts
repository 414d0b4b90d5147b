// Builds the editor page (app/) into dist/app: one HTML file, hashed scripts, styles and the font,
// all served by the editor's own port (no CDN; works offline).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('./app', import.meta.url)),
  base: './',
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('./dist/app', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // the CSP allows no inline script or style: keep every asset a file
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
});
