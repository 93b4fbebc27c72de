/** `mage match --env <id> --agent <id> --opponent <id> --games N [--seat …] [--seed S]` on an env's game. */

import { createRng } from '@mage-rl/core';
import { MATCH_SEATS, type MatchSeat, playMatch } from '@mage-rl/opponents';
import type { Command } from 'commander';
import { printJson, printTable } from '../output/format';
import type { Io } from '../program/error-boundary';
import { createCliOpponent, matchGame, OPPONENT_ENV_IDS } from '../registry';
import { oneOf, positiveInt } from './game-options';
import { seedOf } from './learning-flags';

export interface MatchJson {
  readonly env: string;
  readonly agent: string;
  readonly opponent: string;
  readonly games: number;
  readonly seat: MatchSeat;
  readonly seed: number;
  /** Agent results: return > 0, = 0, < 0. */
  readonly wins: number;
  readonly draws: number;
  readonly losses: number;
  readonly winRate: number;
  readonly drawRate: number;
  readonly lossRate: number;
  /** Games the agent played as player 0 (moving first). */
  readonly agentFirst: number;
  /** Mean return of the agent per game in game units (Tic-Tac-Toe ±1/0; Kuhn chips). */
  readonly meanReturn: number;
  /**
   * Envs whose definition names a return unit repeat `meanReturn` under that unit's name: Kuhn Poker's
   * `chips per hand` gives `meanChipsPerHand`.
   */
  readonly meanChipsPerHand?: number;
  readonly [unitKey: `mean${string}`]: number | undefined;
}

/** `chips per hand` → `meanChipsPerHand`. */
export function returnUnitKey(unit: string): `mean${string}` {
  const words = unit.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return `mean${words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('')}`;
}

export function matchCommand(program: Command, io: Io): void {
  program
    .command('match')
    .description('play two scripted players against each other and count wins, draws and losses')
    .requiredOption('--env <id>', OPPONENT_ENV_IDS.join(' | '))
    .requiredOption('--agent <id>', 'the first player’s opponent id (the one results are reported for)')
    .requiredOption('--opponent <id>', 'the other player’s opponent id')
    .option('--games <n>', 'number of games', '100')
    .option('--seat <seat>', `the agent’s seat: ${MATCH_SEATS.join(' | ')}`, 'alternate')
    .option('--seed <n>', 'seed of every random choice (a non-negative integer)', '0')
    .option('--json', 'print JSON')
    .action(
      (opts: {
        env: string;
        agent: string;
        opponent: string;
        games: string;
        seat: string;
        seed: string;
        json?: boolean;
      }) => {
        const { envId, game, root, definition } = matchGame(opts.env);
        const unit = definition.labels?.returnUnit;
        const games = positiveInt(opts.games, '--games', 10_000_000);
        const seat = oneOf(opts.seat, '--seat', MATCH_SEATS);
        const seed = seedOf(opts.seed);
        const agent = createCliOpponent(envId, opts.agent);
        const opponent = createCliOpponent(envId, opts.opponent);
        const r = playMatch({
          game,
          root,
          agent,
          opponent,
          games,
          seat,
          rng: createRng(seed).split('match'),
        });
        const json: MatchJson = {
          env: envId,
          agent: agent.id,
          opponent: opponent.id,
          games,
          seat,
          seed,
          wins: r.wins,
          draws: r.draws,
          losses: r.losses,
          winRate: r.wins / games,
          drawRate: r.draws / games,
          lossRate: r.losses / games,
          agentFirst: r.agentFirst,
          meanReturn: r.meanReturn,
          ...(unit ? { [returnUnitKey(unit)]: r.meanReturn } : {}),
        };
        if (opts.json) {
          printJson(io, json);
          return;
        }
        io.stdout(
          `${envId}: ${agent.id} (agent) vs ${opponent.id}, ${games} games, seat ${seat}, seed ${seed}\n\n`,
        );
        const rows: (string | number)[][] = [
          ['wins', r.wins, json.winRate],
          ['draws', r.draws, json.drawRate],
          ['losses', r.losses, json.lossRate],
        ];
        printTable(io, ['result', 'games', 'rate'], rows, 3);
        io.stdout(`\nmean ${unit ?? 'return'} for ${agent.id}: ${r.meanReturn.toFixed(4)}\n`);
      },
    );
}
