/** `mage best-response <game> --opponent <id> [--seat 0|1|mixed] [--json]` on a game `mage solve` knows. */

import { ConfigError } from '@mage-rl/core';
import { ANALYSIS_SEATS, type PolicyFn, type SeatBestResponse, seatBestResponse } from '@mage-rl/opponents';
import type { Command } from 'commander';
import { printJson } from '../output/format';
import type { Io } from '../program/error-boundary';
import { createCliOpponent, solvableGame } from '../registry';
import { oneOf } from './game-options';
import { printStrategy, solveNames } from './solve';

export interface BestResponseJson extends SeatBestResponse {
  readonly game: string;
  readonly opponent: string;
}

/**
 * Opponent `id` of env `envId` with its exact policy, for an exact analysis (`what`); a ConfigError on
 * `flag` when the opponent does not expose one.
 */
export function exactOpponent(
  envId: string,
  id: string,
  flag: string,
  what: string,
): { readonly id: string; readonly policy: PolicyFn<unknown> } {
  const opponent = createCliOpponent(envId, id);
  if (!('policy' in opponent) || typeof opponent.policy !== 'function') {
    throw new ConfigError(`Opponent '${id}' does not expose its policy, so no exact ${what}.`, {
      path: flag,
    });
  }
  return { id: opponent.id, policy: opponent.policy as PolicyFn<unknown> };
}

export function bestResponseCommand(program: Command, io: Io): void {
  program
    .command('best-response')
    .description('exact best response against a fixed opponent: its value per game and the strategy')
    .argument('<game>', `the game: ${solveNames().join(' | ')}`)
    .requiredOption(
      '--opponent <id>',
      'opponent id of the game (Kuhn: conservative, aggressive, intermediate, cfr, …)',
    )
    .option('--seat <seat>', 'the agent’s seat: 0 | 1 | mixed', 'mixed')
    .option('--json', 'print JSON')
    .action((name: string, opts: { opponent: string; seat: string; json?: boolean }) => {
      const solvable = solvableGame(name);
      const { envId, game, root } = solvable;
      const unit = solvable.definition.labels?.returnUnit ?? 'reward units';
      const seat = oneOf(opts.seat, '--seat', ANALYSIS_SEATS);
      const opponent = exactOpponent(envId, opts.opponent, '--opponent', 'best response');
      const br = seatBestResponse({ game, root, strategy: opponent.policy, seat });
      const json: BestResponseJson = { game: envId, opponent: opponent.id, ...br };
      if (opts.json) {
        printJson(io, json);
        return;
      }
      io.stdout(
        `Best response to '${opponent.id}' (agent seat ${seat}): ${br.value.toFixed(6)} ${unit}` +
          ` (seat 0: ${br.valueBySeat['0'].toFixed(6)}, seat 1: ${br.valueBySeat['1'].toFixed(6)})\n\n`,
      );
      printStrategy(io, solvable, br.strategy);
    });
}
