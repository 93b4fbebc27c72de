import { packageConfig } from '../../tsup.base';

export default packageConfig({ index: 'src/index.ts' });
