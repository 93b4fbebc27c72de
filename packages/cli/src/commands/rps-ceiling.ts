/**
 * `mage adaptation-ceiling rps`: the exact levels of Rock-Paper-Scissors against hidden-rule bots
 * (opponents' `rpsCeiling`) — the memoryless best response, the myopic reader and the Bayes reader, per
 * attempt, under the population and against each evaluated opponent, as sweeps (the env's success, the
 * unit of pass@k) and as wins per throw.
 */

import { ConfigError } from '@mage-rl/core';
import { createRps, RPS_ENV_ID, type RpsOptions } from '@mage-rl/envs/rps';
import {
  RPS_BOTS,
  RPS_PLAYERS,
  type RpsCeiling,
  type RpsLevels,
  type RpsOpponentModel,
  rpsCeiling,
  ruleModel,
} from '@mage-rl/opponents';
import { type Cell, printTable } from '../output/format';
import type { Io } from '../program/error-boundary';
import { positiveInt } from './game-options';
import { envOptionsOf } from './train-overrides';

export interface RpsCeilingJson extends RpsCeiling {
  readonly env: typeof RPS_ENV_ID;
  /** The env's resolved options (`maxTurns`: throws per attempt). */
  readonly options: Readonly<Record<string, unknown>>;
  readonly attempts: number;
  /** `--population` as given (a preset name or `id[:weight],…`). */
  readonly populationName: string;
  /** The population the opponent is drawn from: the players' prior. */
  readonly population: readonly { readonly id: string; readonly weight: number }[];
}

/** The uniformly random bot: nothing to learn, a control. */
const RANDOM_MODEL: RpsOpponentModel = { id: 'random', throwProbabilities: () => [1 / 3, 1 / 3, 1 / 3] };

function ruleOf(id: string, flag: string) {
  const rule = RPS_BOTS.get(id);
  if (!rule) {
    throw new ConfigError(
      `${flag}: '${id}' is not a Rock-Paper-Scissors rule bot${id === 'random' ? ' (random has no rule to learn; evaluate against it with --opponents)' : ''}. Known: ${[...RPS_BOTS.keys()].join(', ')}.`,
      { path: flag },
    );
  }
  return rule;
}

export interface RpsCeilingRequest {
  /** `--population` as given: a preset name or `id[:weight],…`. */
  readonly populationText: string;
  readonly population: readonly { readonly id: string; readonly weight: number }[];
  /** `--opponents` ids (rule bots or `random`); absent: the population. */
  readonly opponents?: readonly string[];
  readonly attempts: string;
  readonly option: readonly string[];
}

/** The levels of `request`, checked: rule bots in the population, known opponents, bounded sizes. */
export function rpsCeilingJson(request: RpsCeilingRequest): RpsCeilingJson {
  const env = createRps(envOptionsOf(request.option) as RpsOptions);
  // The exact enumeration grows with attempts and throws (9 throws, 6 attempts: a few seconds).
  const attempts = positiveInt(request.attempts, '--attempts', 6);
  const population = request.population.map((e) => ({
    rule: ruleOf(e.id, '--population'),
    weight: e.weight,
  }));
  const evaluate = request.opponents?.map((id) => ({
    model: id === 'random' ? RANDOM_MODEL : ruleModel(ruleOf(id, '--opponents')),
    weight: 1,
  }));
  const ceiling = rpsCeiling({
    population,
    ...(evaluate ? { evaluate } : {}),
    attempts,
    throws: env.maxTurns,
  });
  return {
    env: RPS_ENV_ID,
    options: env.options,
    attempts,
    populationName: request.populationText,
    population: request.population,
    ...ceiling,
  };
}

const levelCells = (levels: RpsLevels): Cell[] => [...levels.success, ...levels.passAtK, ...levels.score];

export function printRpsCeiling(io: Io, json: RpsCeilingJson): void {
  const options = Object.entries(json.options)
    .map(([k, v]) => `${k} ${String(v)}`)
    .join(', ');
  const weights = new Set(json.population.map((e) => e.weight));
  const drawn = `${json.populationName} (${json.population.length} bots${weights.size === 1 ? ', equal weights' : ''})`;
  io.stdout(
    `Adaptation ceiling, rps (${options}), ${json.attempts} attempts; opponent drawn from ${drawn}.\n` +
      'success: the attempt wins every throw (the env’s success, the unit of pass@k); score: wins per throw ' +
      '(a draw or a loss 0).\nmemoryless: best response to the prior within each attempt, no notes (its score ' +
      'caps every note-blind policy); myopic: the same to the belief every earlier round left; bayes: best over ' +
      'the attempts left. Exact (every branch enumerated; ties at random).\n\n',
  );
  const k = Array.from({ length: json.attempts }, (_, i) => i + 1);
  const columns = [
    ...k.map((i) => `success ${i}`),
    ...k.map((i) => `pass@${i}`),
    ...k.map((i) => `score ${i}`),
  ];
  io.stdout(
    json.population.length === json.opponents.length
      ? 'under the prior (every member, by its weight):\n'
      : 'over the evaluated opponents (equal weights):\n',
  );
  printTable(
    io,
    ['player', ...columns],
    RPS_PLAYERS.map((p) => [p, ...levelCells(json.mean[p])]),
    3,
  );
  io.stdout('\nper opponent:\n');
  printTable(
    io,
    ['opponent', 'player', ...columns],
    json.opponents.flatMap((o) => RPS_PLAYERS.map((p) => [o.id, p, ...levelCells(o.levels[p])])),
    3,
  );
}
