import { packageConfig } from '../../tsup.base';

export default packageConfig(
  // The worker entry is plain JavaScript and lands next to index.js, where createWorkerRunner looks for it.
  { index: 'src/index.ts', 'ort-worker': 'src/runtime/ort-worker.js' },
  { dts: { entry: { index: 'src/index.ts' } } },
);
