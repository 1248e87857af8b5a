import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/** The dashboard SPA; `outDir` is overridden by scripts/build.sh (dist/) and the browser specs. */
export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  logLevel: 'warn',
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: false, assetsDir: 'assets' },
});
