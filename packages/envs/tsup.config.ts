import { packageConfig } from '../../tsup.base';

export default packageConfig({
  index: 'src/index.ts',
  'tictactoe/index': 'src/tictactoe/index.ts',
  'kuhn-poker/index': 'src/kuhn-poker/index.ts',
  'sokoban/index': 'src/sokoban/index.ts',
  'treasure/index': 'src/treasure/index.ts',
  'doors/index': 'src/doors/index.ts',
  'rps/index': 'src/rps/index.ts',
});
