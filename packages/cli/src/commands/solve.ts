/** `mage solve kuhn [--algorithm cfr|cfr+] [--iterations N] [--json]`. */

import { CFR_ALGORITHMS, type CfrAlgorithm, solveGame } from '@mage-rl/opponents';
import type { Command } from 'commander';
import { printJson, printTable } from '../output/format';
import type { Io } from '../program/error-boundary';
import { solvableGame } from '../registry';
import { oneOf, positiveInt } from './game-options';

export interface SolveJson {
  readonly game: string;
  readonly algorithm: CfrAlgorithm;
  readonly iterations: number;
  /** Player 0's expected chips per hand under the average strategy (Kuhn: → −1/18). */
  readonly value: number;
  /** The exact game value for player 0, for comparison. */
  readonly gameValue: number;
  /** NashConv / 2 of the average strategy (OpenSpiel convention). */
  readonly exploitability: number;
  readonly nashConv: number;
  /** Information-state key (`<card>:<history>`) → action → probability. */
  readonly strategy: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

export function solveCommand(program: Command, io: Io): void {
  program
    .command('solve')
    .description('solve a game with CFR or CFR+: game value, exploitability and the average strategy')
    .argument('<game>', 'the game to solve: kuhn')
    .option('--algorithm <name>', `${CFR_ALGORITHMS.join(' | ')}`, 'cfr+')
    .option('--iterations <n>', 'iterations (each updates both players)', '1000')
    .option('--json', 'print JSON')
    .action((name: string, opts: { algorithm: string; iterations: string; json?: boolean }) => {
      const { envId, game, root } = solvableGame(name);
      const algorithm = oneOf(opts.algorithm, '--algorithm', CFR_ALGORITHMS);
      const iterations = positiveInt(opts.iterations, '--iterations', 10_000_000);
      const result = solveGame({ game, root, algorithm, iterations });
      const json: SolveJson = {
        game: envId,
        algorithm,
        iterations,
        value: result.value,
        gameValue: -1 / 18,
        exploitability: result.exploitability,
        nashConv: result.nashConv,
        strategy: result.strategy,
      };
      if (opts.json) {
        printJson(io, json);
        return;
      }
      io.stdout(
        `Kuhn Poker, ${algorithm}, ${iterations} iterations\n` +
          `value for player 0: ${json.value.toFixed(6)} chips/hand (exact −1/18 = ${(-1 / 18).toFixed(6)})\n` +
          `exploitability (NashConv/2): ${json.exploitability.toExponential(3)}\n\n`,
      );
      printTable(
        io,
        ['info state', 'player', 'card', 'history', 'P(PASS)', 'P(BET)'],
        strategyRows(json.strategy),
        3,
      );
    });
}

/** Rows `[key, player, card, history, pass, bet]` of a Kuhn strategy table, ordered by player, history, card. */
export function strategyRows(
  strategy: Readonly<Record<string, Readonly<Record<string, number>>>>,
): (string | number)[][] {
  const cardOrder = 'JQK';
  return Object.entries(strategy)
    .map(([key, row]) => {
      const [card = '', history = ''] = key.split(':');
      return [key, history.length % 2, card, history || '-', row.PASS ?? 0, row.BET ?? 0] as (
        | string
        | number
      )[];
    })
    .sort(
      (a, b) =>
        (a[1] as number) - (b[1] as number) ||
        String(a[3]).length - String(b[3]).length ||
        cardOrder.indexOf(String(a[2])) - cardOrder.indexOf(String(b[2])),
    );
}
