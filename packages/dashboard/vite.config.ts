import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig } from 'vite';

// The dashboard is built into dist/, which the API serves under / (api/dashboard/plugin.ts).
// `npm run dev -w @orrery/dashboard` serves it with hot reload on Vite's port and passes /api to
// the API of `npm start`, so the session cookie stays on one origin.
// `@orrery/source` makes @orrery/sandbox (a workspace package, for `mountScreen`) resolve to its
// TypeScript source, as its own tests do, so the dashboard needs no build of it first.
// Vite builds React's production build only when NODE_ENV is unset or `production` (with any
// other, such as the tests' `test`, it builds the development one): callers of `build()` set it.
export default defineConfig({
  plugins: [react()],
  resolve: { conditions: ['@orrery/source', ...defaultClientConditions] },
  build: { outDir: 'dist', emptyOutDir: true, assetsDir: 'assets' },
  server: { proxy: { '/api': 'http://127.0.0.1:8080' } },
});
