/**
 * Test fixture: serves an env of `@mage-rl/envs` with `startEnvServer` in its own process and prints
 * `listening <url>` once ready. Arguments: `sokoban` | `tictactoe` | `kuhn-poker`, then the protocol
 * (`webshop`, the default, or `openenv`), then optionally the env options used when a reset sends none, as
 * JSON. Tic-Tac-Toe and Kuhn play a random legal opponent.
 */

import { randomLegalOpponent } from '@mage-rl/core/testing';
import { createKuhnPoker, kuhnGame } from '@mage-rl/envs/kuhn-poker';
import { createSokoban } from '@mage-rl/envs/sokoban';
import { createTicTacToe, ticTacToeGame } from '@mage-rl/envs/tictactoe';
import { startEnvServer } from '../server/env-server';

const id = process.argv[2] ?? 'sokoban';
const protocol = process.argv[3] === 'openenv' ? 'openenv' : 'webshop';
const defaultOptions = process.argv[4] === undefined ? undefined : JSON.parse(process.argv[4]);
const create = {
  sokoban: createSokoban,
  tictactoe: createTicTacToe,
  'kuhn-poker': createKuhnPoker,
}[id];
if (!create) throw new Error(`unknown env ${id}`);
const opponent =
  id === 'tictactoe'
    ? () => randomLegalOpponent(ticTacToeGame(3))
    : id === 'kuhn-poker'
      ? () => randomLegalOpponent(kuhnGame)
      : undefined;
const running = await startEnvServer(
  {
    envId: id,
    protocol,
    createEnv: (options) => create(options),
    ...(defaultOptions ? { defaultOptions } : {}),
    ...(opponent ? { createOpponent: () => opponent(), defaultOpponent: 'random' } : {}),
  },
  { port: 0 },
);
process.stdout.write(`listening ${running.url}\n`);
process.on('SIGTERM', () => void running.close().then(() => process.exit(0)));
