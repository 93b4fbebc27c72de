import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'tictactoe/index': 'src/tictactoe/index.ts',
    'kuhn-poker/index': 'src/kuhn-poker/index.ts',
    'sokoban/index': 'src/sokoban/index.ts',
  },
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
});
