import { defineConfig } from 'vite';

// The console is served by the service at /console (src/console/console-site.ts), which reads
// console/dist once at start. Preact's JSX needs no plugin: the transformer is told where its runtime is.
export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', reportCompressedSize: true, modulePreload: { polyfill: false } },
});
