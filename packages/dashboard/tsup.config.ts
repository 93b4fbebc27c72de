import { cp } from 'node:fs/promises';
import { packageConfig } from '../../tsup.base';

// The page ships as plain files beside the bundle: dist/static/ (no build step for users).
export default packageConfig(
  { index: 'src/index.ts' },
  { onSuccess: async () => void (await cp('static', 'dist/static', { recursive: true })) },
);
