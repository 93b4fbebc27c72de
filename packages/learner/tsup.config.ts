import { defineConfig } from 'tsup';

export default defineConfig({
  // The worker entry is plain JavaScript and lands next to index.js, where createWorkerRunner looks for it.
  entry: { index: 'src/index.ts', 'ort-worker': 'src/runtime/ort-worker.js' },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts' } },
  sourcemap: true,
  clean: true,
  target: 'node20',
});
