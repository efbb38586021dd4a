import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import vue from '@vitejs/plugin-vue';

// The dashboard and partner portal: one single-page app served by the service under /dashboard
// and /portal; its files live under /dashboard/assets. No CDN: everything is bundled.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/dashboard/',
  plugins: [vue()],
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // No inline <script> or data: module preload polyfill: the CSP allows scripts from 'self' only.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    // The SFC compiler is most of a build on this machine; the timing advice is noise in server logs.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
});
