import { packageConfig } from '../../tsup.base';

export default packageConfig({ index: 'src/index.ts', 'testing/index': 'src/testing/index.ts' });
