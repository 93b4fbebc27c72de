/**
 * `mage adaptation-ceiling <game> [--population balanced] [--opponents ids] [--attempts 3] [--seat mixed]`:
 * what an agent that adapts perfectly in context could earn per attempt against each opponent. For the
 * single-agent hidden-target tasks (`treasure`, `doors` [--option key=value]) it prints instead the exact
 * pass@k of a memoryless player, a no-repeat player and the Bayes-optimal reader; for `rps` the exact
 * levels of the memoryless best response and the myopic and Bayes readers (rps-ceiling.ts); for
 * `tictactoe` an estimate against a frozen opponent (frozen-ceiling.ts).
 */

import { ConfigError } from '@mage-rl/core';
import { type HiddenTargetLevels, hiddenTargetLevels } from '@mage-rl/envs';
import { RPS_ENV_ID } from '@mage-rl/envs/rps';
import { TICTACTOE_ENV_ID, TICTACTOE_FROZEN_ENV_ID } from '@mage-rl/envs/tictactoe';
import {
  type AdaptationCeilingTable,
  ANALYSIS_SEATS,
  type AnalysisSeat,
  adaptationCeilingTable,
  POPULATION_PRESETS,
  type PopulationEnvId,
} from '@mage-rl/opponents';
import { envDefinition, envRegistry } from '@mage-rl/recipes';
import type { Command } from 'commander';
import { printJson, printTable } from '../output/format';
import type { Io } from '../program/error-boundary';
import { solvableGame } from '../registry';
import { exactOpponent } from './best-response';
import { frozenCeilingJson, printFrozenCeiling } from './frozen-ceiling';
import { oneOf, positiveInt } from './game-options';
import { printRpsCeiling, rpsCeilingJson } from './rps-ceiling';
import { solveNames } from './solve';
import { envOptionsOf } from './train-overrides';

export interface AdaptationCeilingJson extends AdaptationCeilingTable {
  readonly game: string;
  readonly attempts: number;
  readonly seat: AnalysisSeat;
  /** The population the opponent is drawn from, with its prior weights. */
  readonly population: readonly { readonly id: string; readonly weight: number }[];
}

/** `mage adaptation-ceiling treasure|doors --json`: pass@k per attempt of the three players. */
export interface HiddenTargetCeilingJson extends HiddenTargetLevels {
  readonly env: string;
  /** The env's resolved options. */
  readonly options: Readonly<Record<string, unknown>>;
  readonly attempts: number;
}

/** The hidden-target levels of env `name` with `--option` values, or `undefined` for other envs. */
function hiddenTargetCeiling(
  name: string,
  optionArgs: readonly string[],
  attemptsText: string,
): HiddenTargetCeilingJson | undefined {
  if (!envRegistry().has(name) || [RPS_ENV_ID, TICTACTOE_ENV_ID, TICTACTOE_FROZEN_ENV_ID].includes(name)) {
    return undefined;
  }
  const env = envDefinition(name).create(envOptionsOf(optionArgs));
  // The exact search grows with the attempts (9×9 and 20 attempts: about a second).
  const attempts = positiveInt(attemptsText, '--attempts', 20);
  const levels = hiddenTargetLevels(env, attempts);
  if (!levels) return undefined;
  return { env: env.id, options: env.options, attempts, ...levels };
}

function printHiddenTargetCeiling(io: Io, json: HiddenTargetCeilingJson): void {
  const options = Object.entries(json.options)
    .map(([k, v]) => `${k} ${String(v)}`)
    .join(', ');
  io.stdout(
    `Adaptation ceiling, ${json.env} (${options}), ${json.attempts} attempts: the chance that attempt k ` +
      'succeeds (= pass@k).\nmemoryless: a uniformly random action every turn; no-repeat: uniform among the ' +
      'actions not yet tried and failed; bayes: reads every hint, best probe policy (exact, by enumerating ' +
      'the targets).\n\n',
  );
  printTable(
    io,
    ['player', ...Array.from({ length: json.attempts }, (_, k) => `attempt ${k + 1}`)],
    [
      ['memoryless', ...json.memoryless],
      ['no-repeat', ...json.noRepeat],
      ['bayes', ...json.bayes],
    ],
    3,
  );
  const byProbe = json.bayesByFirstProbe;
  if (!byProbe) return;
  io.stdout(
    '\nbayes after a fixed first probe (every later probe the best; cells as row.column, from 1):\n\n',
  );
  printTable(
    io,
    ['first probe', ...Array.from({ length: json.attempts }, (_, k) => `attempt ${k + 1}`)],
    byProbe.map((g) => [
      g.cells.map((c) => `${c.row + 1}.${c.col + 1}`).join(' '),
      ...g.bayes.map((x) => x.toFixed(3)),
    ]),
  );
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
    .argument(
      '<game>',
      `the game: ${[...solveNames(), 'treasure', 'doors', RPS_ENV_ID, TICTACTOE_ENV_ID, TICTACTOE_FROZEN_ENV_ID].join(' | ')}`,
    )
    .option('--population <spec>', 'preset name of the env (balanced, ood, …) or id[:weight],…', 'balanced')
    .option('--opponents <ids>', 'comma-separated opponents to measure against (default: the population)')
    .option('--attempts <n>', 'games per meta-episode', '3')
    .option('--seat <seat>', 'the agent’s seat: 0 | 1 | mixed (tictactoe: first | second | mixed)', 'mixed')
    .option(
      '--option <key=value...>',
      'treasure / doors / rps / tictactoe option, e.g. --option width=4 (value parsed as JSON)',
    )
    .option('--episodes <n>', 'tictactoe: meta-episodes of the estimate per opponent and seat', '1000')
    .option('--json', 'print JSON')
    .action(
      (
        name: string,
        opts: {
          population: string;
          opponents?: string;
          attempts: string;
          seat: string;
          option?: string[];
          episodes: string;
          json?: boolean;
        },
      ) => {
        const hidden = hiddenTargetCeiling(name, opts.option ?? [], opts.attempts);
        if (hidden) {
          if (opts.json) printJson(io, hidden);
          else printHiddenTargetCeiling(io, hidden);
          return;
        }
        if (name === RPS_ENV_ID) {
          const json = rpsCeilingJson({
            populationText: opts.population,
            population: populationEntries(RPS_ENV_ID, opts.population),
            ...(opts.opponents ? { opponents: opts.opponents.split(',').map((id) => id.trim()) } : {}),
            attempts: opts.attempts,
            option: opts.option ?? [],
          });
          if (opts.json) printJson(io, json);
          else printRpsCeiling(io, json);
          return;
        }
        // tictactoe-frozen is Tic-Tac-Toe with these options by default: the same estimate.
        if (name === TICTACTOE_ENV_ID || name === TICTACTOE_FROZEN_ENV_ID) {
          const json = frozenCeilingJson({
            opponents: (opts.opponents ?? 'mcts-100').split(',').map((id) => id.trim()),
            seat: oneOf(opts.seat, '--seat', ['first', 'second', 'mixed'] as const),
            attempts: opts.attempts,
            episodes: opts.episodes,
            option: opts.option ?? [],
          });
          if (opts.json) printJson(io, json);
          else printFrozenCeiling(io, json);
          return;
        }
        if (opts.option) {
          throw new ConfigError(
            `--option applies to treasure, doors, rps and tictactoe only, not '${name}'.`,
            {
              path: '--option',
            },
          );
        }
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
