/**
 * The console's build: static files under dist/, served by the gateway at /console/ (so `base` is relative), with
 * no inline script or style the gateway's Content-Security-Policy (default-src 'self') would refuse.
 */
import { defineConfig } from 'vite';

export default defineConfig({
  base: './',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Never inline assets as data: URLs; the CSP allows only 'self'.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
});
