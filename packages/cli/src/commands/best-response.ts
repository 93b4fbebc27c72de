/** `mage best-response <game> --opponent <id> [--seat 0|1|mixed] [--json]` on a game `mage solve` knows. */

import { ConfigError } from '@mage-rl/core';
import { bestResponse, type PolicyFn } from '@mage-rl/opponents';
import type { Command } from 'commander';
import { printJson } from '../output/format';
import type { Io } from '../program/error-boundary';
import { createCliOpponent, solvableGame } from '../registry';
import { oneOf } from './game-options';
import { printStrategy, solveNames } from './solve';

const SEATS = ['0', '1', 'mixed'] as const;

export interface BestResponseJson {
  readonly game: string;
  readonly opponent: string;
  /** The agent's seat: `0` (acts first), `1`, or `mixed` (half the hands each). */
  readonly seat: '0' | '1' | 'mixed';
  /** Best-response value for the agent per game (Kuhn: chips per hand; mean of both seats for `mixed`). */
  readonly value: number;
  /** Best-response value per agent seat. */
  readonly valueBySeat: { readonly '0': number; readonly '1': number };
  /** The agent's best-response strategy (the information sets of its seat or seats). */
  readonly strategy: Readonly<Record<string, Readonly<Record<string, number>>>>;
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
      const seat = oneOf(opts.seat, '--seat', SEATS);
      const opponent = exactOpponent(envId, opts.opponent, '--opponent', 'best response');
      const { policy } = opponent;
      const br0 = bestResponse({ game, root, strategy: policy, player: 0 });
      const br1 = bestResponse({ game, root, strategy: policy, player: 1 });
      const value = seat === '0' ? br0.value : seat === '1' ? br1.value : (br0.value + br1.value) / 2;
      const strategy =
        seat === '0' ? br0.strategy : seat === '1' ? br1.strategy : { ...br0.strategy, ...br1.strategy };
      const json: BestResponseJson = {
        game: envId,
        opponent: opponent.id,
        seat,
        value,
        valueBySeat: { '0': br0.value, '1': br1.value },
        strategy,
      };
      if (opts.json) {
        printJson(io, json);
        return;
      }
      io.stdout(
        `Best response to '${opponent.id}' (agent seat ${seat}): ${value.toFixed(6)} ${unit}` +
          ` (seat 0: ${br0.value.toFixed(6)}, seat 1: ${br1.value.toFixed(6)})\n\n`,
      );
      printStrategy(io, solvable, strategy);
    });
}
