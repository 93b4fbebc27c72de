/**
 * Rock-Paper-Scissors as the trainer knows it: an opponent-exploitation task. The training population is
 * the 18 bots of the training families (`balanced`), the out-of-domain one the 12 bots of other families
 * (`ood`); the training defaults are the hidden-target ones (the settings under which RL taught mage-tiny
 * to read its notes), the teacher is the memoryless best response (the myopic reader when it reads its
 * notes), and the adaptation ceiling is the exact Bayes reader's pass@k over the training population.
 * Its recipe is the `reading` run preset, the budget of docs/results/rps-exploit.
 */

import type { EnvDefinitionV1 } from '@mage-rl/core';
import {
  createRps,
  initialRpsState,
  RPS_ENV_ID,
  RPS_MAX_THROWS,
  RPS_MIN_THROWS,
  RPS_RESULT_WORDS,
  RPS_THROWS,
  type RpsOptions,
  type RpsState,
  type RpsThrow,
  rpsGame,
  rpsRules,
} from '@mage-rl/envs/rps';
import { POPULATION_PRESETS, RPS_BOTS, rpsCeiling, rpsOpponentRegistry } from '@mage-rl/opponents';
import type { TrainConfigInput } from '../presets/schema';
import { rpsTeacher } from '../teachers/rps-teacher';
import { HIDDEN_TARGET_DEFAULTS } from './hidden-target-defaults';
import { textWords } from './words';

const populations = POPULATION_PRESETS.rps;
const ids = (name: string) => (populations[name] ?? []).map((e) => e.id);

/** Throws, results, the observation's words, outcome labels and the compact rules of every throw count. */
function compactWords(): string[] {
  const rules: string[] = [];
  for (let n = RPS_MIN_THROWS; n <= RPS_MAX_THROWS; n++) rules.push(rpsRules(n, 10, 'compact'));
  return textWords([...RPS_THROWS, ...RPS_RESULT_WORDS, 'throw', 'of', 'opp', 'end', 'truncated'], rules);
}

/** pass@k of the Bayes reader over the training population with the env's throws per attempt. */
function bayesPassAtK(options: Readonly<Record<string, unknown>>, attempts: number): readonly number[] {
  // The env validates the options (a ConfigError names a bad one).
  const throws = createRps(options as RpsOptions).maxTurns;
  const population = (populations.balanced ?? []).flatMap(({ id, weight }) => {
    const rule = RPS_BOTS.get(id);
    return rule ? [{ rule, weight }] : [];
  });
  return rpsCeiling({ population, attempts, throws }).mean.bayes.passAtK;
}

export const rpsEnvDefinition: EnvDefinitionV1<RpsState, RpsThrow> = {
  specificationVersion: 'v1',
  id: RPS_ENV_ID,
  description:
    'Rock-Paper-Scissors against hidden-rule bots, the same bot every attempt (exploit the opponent)',
  create: (options) => createRps(options as RpsOptions),
  defaults: {
    env: { options: {} },
    // Learning the bot's rule is learning a hidden target: the same credit and KL settings.
    ...HIDDEN_TARGET_DEFAULTS,
    population: { preset: 'balanced', fixedOpponent: null, mode: 'sampled' },
    eval: { inDomain: ids('balanced'), outOfDomain: ids('ood'), envOptions: {}, outOfDomainEnvOptions: [] },
  } satisfies TrainConfigInput,
  opponents: {
    ...rpsOpponentRegistry(),
    populations,
    match: { model: rpsGame(3), root: initialRpsState(3) },
  },
  // Revision 2: tied throws drawn 4 : 2 : 1 (they went to rock before).
  warmStart: { teacher: rpsTeacher, words: compactWords(), revision: 2 },
  // The budget of the runs written up there: the `reading` run preset (300 iterations, mini-batches of 8
  // rows, the 4× warm-start corpus), so `mage train --env rps --seed N` runs them.
  recipe: { preset: 'reading', results: 'docs/results/rps-exploit' },
  adaptationCeiling: bayesPassAtK,
  labels: { name: 'Rock-Paper-Scissors', success: 'every throw of the attempt won' },
};
