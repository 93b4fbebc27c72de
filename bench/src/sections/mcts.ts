/**
 * MCTS simulations per second from the empty 3×3 Tic-Tac-Toe board: our UCT + MCTS-Solver engine
 * (`@mage-rl/opponents`) and boardgame.io's `MCTSBot` on a Tic-Tac-Toe game definition written here, on
 * the same position with the same number of simulations per move (1000), in one run.
 */

import { createRequire } from 'node:module';
import { createRng } from '@mage-rl/core';
import { initialTicTacToeState } from '@mage-rl/envs/tictactoe';
import { createTicTacToeMcts } from '@mage-rl/opponents';
import { type BenchResult, type BenchSection, measureRate, measureRateAsync } from '../harness';

// boardgame.io ships its subpaths (`/ai`, `/core`, `/internal`) as CommonJS without an `exports` map,
// which Node's ESM resolver cannot load by subpath; require the CJS builds and take the types from the
// published declarations.
const require = createRequire(import.meta.url);
const { MCTSBot } = require('boardgame.io/dist/cjs/ai.js') as typeof import('boardgame.io/ai');
const { INVALID_MOVE } = require('boardgame.io/dist/cjs/core.js') as typeof import('boardgame.io/core');
const { InitializeGame } =
  require('boardgame.io/dist/cjs/internal.js') as typeof import('boardgame.io/internal');

const LINES = [
  [0, 1, 2],
  [3, 4, 5],
  [6, 7, 8],
  [0, 3, 6],
  [1, 4, 7],
  [2, 5, 8],
  [0, 4, 8],
  [2, 4, 6],
] as const;

interface TicTacToeG {
  cells: (string | null)[];
}

/** Tic-Tac-Toe for boardgame.io, as in its own tutorial (0.50 move signature). */
const boardgameTicTacToe = {
  name: 'tictactoe',
  setup: (): TicTacToeG => ({ cells: Array<string | null>(9).fill(null) }),
  turn: { minMoves: 1, maxMoves: 1 },
  moves: {
    clickCell: ({ G, playerID }: { G: TicTacToeG; playerID: string }, id: number) => {
      if (G.cells[id] !== null) return INVALID_MOVE;
      G.cells[id] = playerID;
    },
  },
  endIf: ({ G, ctx }: { G: TicTacToeG; ctx: { currentPlayer: string } }) => {
    if (
      LINES.some(([a, b, c]) => G.cells[a] !== null && G.cells[a] === G.cells[b] && G.cells[a] === G.cells[c])
    ) {
      return { winner: ctx.currentPlayer };
    }
    if (G.cells.every((c) => c !== null)) return { draw: true };
    return undefined;
  },
  ai: {
    enumerate: (G: TicTacToeG) =>
      G.cells.flatMap((c, i) => (c === null ? [{ move: 'clickCell', args: [i] }] : [])),
  },
};

const SIMS = 1000;

const section: BenchSection = {
  title: 'MCTS on Tic-Tac-Toe (empty 3×3 board)',
  async run() {
    const empty = initialTicTacToeState(3);
    const rng = createRng('bench-mcts');
    const ours = createTicTacToeMcts({ simulations: SIMS });
    const oursRate = measureRate(() => ours.search(empty, rng).simulations);
    const ours100 = createTicTacToeMcts({ simulations: 100 });
    const ours100Rate = measureRate(() => ours100.search(empty, rng).simulations);

    // biome-ignore lint/suspicious/noExplicitAny: boardgame.io's Game type is loose; the definition above is typed.
    const game = boardgameTicTacToe as any;
    const state = InitializeGame({ game });
    const bot = new MCTSBot({ game, enumerate: game.ai.enumerate, iterations: SIMS, seed: 'bench' });
    const theirRate = await measureRateAsync(
      async () => {
        await bot.play(state, '0');
        return SIMS;
      },
      { minMs: 3000, warmupMs: 500 },
    );
    const results: BenchResult[] = [
      {
        name: `ours: simulations/s (${SIMS} per move)`,
        value: oursRate,
        unit: 'sims/s',
        target: { value: 500_000, comparison: '>=' },
      },
      { name: 'ours: simulations/s (100 per move, mcts-100)', value: ours100Rate, unit: 'sims/s' },
      { name: `boardgame.io MCTSBot: simulations/s (${SIMS} per move)`, value: theirRate, unit: 'sims/s' },
      {
        name: 'ratio ours / boardgame.io',
        value: oursRate / theirRate,
        unit: '×',
        target: { value: 1, comparison: '>=' },
      },
    ];
    return results;
  },
};
export default section;
