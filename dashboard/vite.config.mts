// Builds the widget as Dashboard 2.0 loads third-party widgets: one UMD file in resources/ (the folder
// Node-RED serves at /resources/<package>/) that sets window['vision-streaming-live'] to the
// components, on the dashboard's own Vue (window.Vue), with no stylesheet of its own.
import { fileURLToPath } from 'node:url';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';

/** The library's global name: the key of the widget in package.json's "node-red-dashboard-2" block. */
const LIBRARY = 'vision-streaming-live';
const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here('.'),
  plugins: [vue()],
  logLevel: 'warn',
  build: {
    outDir: here('resources'),
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2020',
    lib: {
      entry: here('src/index.ts'),
      name: LIBRARY,
      formats: ['umd'],
      fileName: () => `${LIBRARY}.umd.js`,
    },
    rollupOptions: {
      external: ['vue'],
      output: { globals: { vue: 'Vue' } },
    },
  },
});
