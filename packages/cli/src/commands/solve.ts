/** `mage solve <game> [--algorithm cfr|cfr+] [--iterations N] [--json]`: games whose env definition offers them. */

import type { EnvDefinitionV1 } from '@mage-rl/core';
import { CFR_ALGORITHMS, type CfrAlgorithm, solveGame } from '@mage-rl/opponents';
import { envRegistry } from '@mage-rl/recipes';
import type { Command } from 'commander';
import { printJson, printTable } from '../output/format';
import type { Io } from '../program/error-boundary';
import { type MatchGame, solvableGame } from '../registry';
import { oneOf, positiveInt } from './game-options';

export interface SolveJson {
  readonly game: string;
  readonly algorithm: CfrAlgorithm;
  readonly iterations: number;
  /** Player 0's expected return per game under the average strategy (Kuhn: chips per hand, → −1/18). */
  readonly value: number;
  /** The exact game value for player 0, for comparison (null when the env's definition gives none). */
  readonly gameValue: number | null;
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
    .argument('<game>', `the game to solve: ${solveNames().join(' | ')}`)
    .option('--algorithm <name>', `${CFR_ALGORITHMS.join(' | ')}`, 'cfr+')
    .option('--iterations <n>', 'iterations (each updates both players)', '1000')
    .option('--json', 'print JSON')
    .action((name: string, opts: { algorithm: string; iterations: string; json?: boolean }) => {
      const solvable = solvableGame(name);
      const { envId, game, root } = solvable;
      const match = matchOf(solvable);
      const labels = solvable.definition.labels;
      const unit = labels?.returnUnit ?? 'reward units';
      const algorithm = oneOf(opts.algorithm, '--algorithm', CFR_ALGORITHMS);
      const iterations = positiveInt(opts.iterations, '--iterations', 10_000_000);
      const result = solveGame({ game, root, algorithm, iterations });
      const json: SolveJson = {
        game: envId,
        algorithm,
        iterations,
        value: result.value,
        gameValue: match.value?.value ?? null,
        exploitability: result.exploitability,
        nashConv: result.nashConv,
        strategy: result.strategy,
      };
      if (opts.json) {
        printJson(io, json);
        return;
      }
      const exact = match.value ? ` (exact ${match.value.text} = ${match.value.value.toFixed(6)})` : '';
      io.stdout(
        `${labels?.name ?? envId}, ${algorithm}, ${iterations} iterations\n` +
          `value for player 0: ${json.value.toFixed(6)} ${unit}${exact}\n` +
          `exploitability (NashConv/2): ${json.exploitability.toExponential(3)}\n\n`,
      );
      printStrategy(io, solvable, json.strategy);
    });
}

/** Names `mage solve` and `mage best-response` accept. */
export function solveNames(): string[] {
  return envRegistry().definitions.flatMap((d) => d.opponents?.match?.solveNames ?? []);
}

type MatchOf = NonNullable<NonNullable<EnvDefinitionV1['opponents']>['match']>;

/** The game description of a solvable env. */
export function matchOf(solvable: MatchGame): MatchOf {
  return solvable.definition.opponents?.match as MatchOf;
}

type Strategy = Readonly<Record<string, Readonly<Record<string, number>>>>;

/**
 * A strategy as the env's definition lays it out (Kuhn: card, history, P(PASS), P(BET)), else one row per
 * information state with a column per action.
 */
export function printStrategy(io: Io, solvable: MatchGame, strategy: Strategy): void {
  const table = matchOf(solvable).strategyTable?.(strategy);
  if (table) {
    printTable(io, table.columns, table.rows, 3);
    return;
  }
  const actions = [...new Set(Object.values(strategy).flatMap((row) => Object.keys(row)))];
  printTable(
    io,
    ['info state', ...actions.map((a) => `P(${a})`)],
    Object.keys(strategy)
      .sort()
      .map((key) => [key, ...actions.map((a) => strategy[key]?.[a] ?? 0)]),
    3,
  );
}
