import { packageConfig } from '../../tsup.base';

export default packageConfig(
  {
    index: 'src/index.ts',
    'testing/index': 'src/testing/index.ts',
    'testing/vitest': 'src/testing/vitest.ts',
    'http/index': 'src/http/index.ts',
  },
  // `./testing/vitest` runs inside its user's vitest: import it, never bundle a copy (vitest is not a
  // dependency, so tsup would inline it).
  { external: ['vitest'] },
);
