import { defineConfig, loadEnv } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * The console (web/, its own build). `vite build web` writes dist/web, which the gateway serves
 * at /console (src/api/console/static-app.ts). `vite web` serves it with hot reload and sends
 * API calls to a gateway at GATEWAY_DEV_URL (default http://127.0.0.1:8080).
 */
export default defineConfig(({ mode }) => {
  const gateway = loadEnv(mode, '.', 'GATEWAY_').GATEWAY_DEV_URL ?? 'http://127.0.0.1:8080';
  return {
    base: '/console/',
    plugins: [react()],
    build: {
      outDir: '../dist/web',
      emptyOutDir: true,
      // No source maps in the package; hashed names let the gateway mark every asset immutable.
      sourcemap: false,
      chunkSizeWarningLimit: 800,
    },
    server: {
      proxy: { '/console/api': gateway, '/admin/api': gateway, '/v1': gateway },
    },
  };
});
