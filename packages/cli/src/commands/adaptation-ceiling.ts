/**
 * `mage adaptation-ceiling <game> [--population balanced] [--opponents ids] [--attempts 3] [--seat mixed]`:
 * what an agent that adapts perfectly in context could earn per attempt against each opponent.
 */

import { ConfigError } from '@mage-rl/core';
import {
  type AdaptationCeilingTable,
  ANALYSIS_SEATS,
  type AnalysisSeat,
  adaptationCeilingTable,
  POPULATION_PRESETS,
  type PopulationEnvId,
} from '@mage-rl/opponents';
import type { Command } from 'commander';
import { printJson, printTable } from '../output/format';
import type { Io } from '../program/error-boundary';
import { solvableGame } from '../registry';
import { exactOpponent } from './best-response';
import { oneOf, positiveInt } from './game-options';
import { solveNames } from './solve';

export interface AdaptationCeilingJson extends AdaptationCeilingTable {
  readonly game: string;
  readonly attempts: number;
  readonly seat: AnalysisSeat;
  /** The population the opponent is drawn from, with its prior weights. */
  readonly population: readonly { readonly id: string; readonly weight: number }[];
}

/** `balanced` (a preset of the env) or `id[:weight],…` (weights default to 1). */
function populationEntries(envId: string, text: string): { id: string; weight: number }[] {
  const preset = POPULATION_PRESETS[envId as PopulationEnvId]?.[text];
  if (preset) return preset.map((e) => ({ ...e }));
  return text.split(',').map((part) => {
    const [id = '', weightText] = part.trim().split(':');
    const weight = weightText === undefined ? 1 : Number(weightText);
    if (id === '' || !(weight >= 0)) {
      throw new ConfigError(`--population expects a preset name or id[:weight],…; got '${text}'.`, {
        path: '--population',
      });
    }
    return { id, weight };
  });
}

export function adaptationCeilingCommand(program: Command, io: Io): void {
  program
    .command('adaptation-ceiling')
    .description(
      'what perfect in-context adaptation earns: the exact Bayes-optimal agent over K attempts against an ' +
        'opponent drawn from a population, per attempt and opponent, beside the best response',
    )
    .argument('<game>', `the game: ${solveNames().join(' | ')}`)
    .option('--population <spec>', 'preset name of the env (balanced, …) or id[:weight],…', 'balanced')
    .option('--opponents <ids>', 'comma-separated opponents to measure against (default: the population)')
    .option('--attempts <n>', 'games per meta-episode', '3')
    .option('--seat <seat>', 'the agent’s seat: 0 | 1 | mixed', 'mixed')
    .option('--json', 'print JSON')
    .action(
      (
        name: string,
        opts: { population: string; opponents?: string; attempts: string; seat: string; json?: boolean },
      ) => {
        const solvable = solvableGame(name);
        const { envId, game, root } = solvable;
        const unit = solvable.definition.labels?.returnUnit ?? 'reward units';
        const seat = oneOf(opts.seat, '--seat', ANALYSIS_SEATS);
        // The belief tree grows with the attempts: with a stochastic member about 3× per attempt (8: ~30 s).
        const attempts = positiveInt(opts.attempts, '--attempts', 8);
        const entries = populationEntries(envId, opts.population);
        const population = entries.map((e) => ({
          ...exactOpponent(envId, e.id, '--population', 'analysis'),
          weight: e.weight,
        }));
        const evaluate = opts.opponents
          ? opts.opponents.split(',').map((id) => exactOpponent(envId, id.trim(), '--opponents', 'analysis'))
          : population;
        const table = adaptationCeilingTable({ game, root, seat, attempts, population, evaluate });
        const json: AdaptationCeilingJson = { game: envId, attempts, seat, population: entries, ...table };
        if (opts.json) {
          printJson(io, json);
          return;
        }
        const weights = entries.map((e) => `${e.id} ${e.weight}`).join(', ');
        io.stdout(
          `Adaptation ceiling, ${envId}, ${attempts} attempts, agent seat ${seat}; opponent drawn from ` +
            `${weights}; ${unit} per attempt.\n` +
            'bayes: maximises the total over the attempts (may probe first); myopic: best-responds to its ' +
            'current belief each attempt.\n\n',
        );
        const attemptColumns = (planner: string) =>
          Array.from({ length: attempts }, (_, k) => `${planner} ${k + 1}`);
        printTable(
          io,
          ['opponent', 'best response', ...attemptColumns('bayes'), ...attemptColumns('myopic')],
          json.opponents.map((o) => [o.id, o.bestResponse, ...o.perAttempt.bayes, ...o.perAttempt.myopic]),
          3,
        );
        io.stdout(
          `\nunder the prior, per attempt: bayes ${json.value.bayes.toFixed(3)}, myopic ${json.value.myopic.toFixed(3)}\n`,
        );
      },
    );
}
