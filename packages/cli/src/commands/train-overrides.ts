/**
 * `mage train` / `mage eval` config overrides from the command line: the ablation switches of the paper
 * as named flags, `--config <file.json>` (a partial config) and `--set <path>=<value>` for any other
 * value. Layering, lowest first: preset → env → method → config file → named flags → `--set`. The merged
 * result is validated by `resolveTrainConfig`, whose errors name the config path.
 */

import { ConfigError, readJsonCheckedSync } from '@mage-rl/core';
import { CONFIG_LIMITS, MEMORY_KINDS, mergeConfig, type TrainConfigInput } from '@mage-rl/recipes';
import { z } from 'zod';
import { oneOf, positiveInt } from './game-options';

/** The flags as commander hands them over (all strings; `earlyStop` false only for `--no-early-stop`). */
export interface OverrideFlags {
  readonly config?: string;
  readonly set?: readonly string[];
  readonly iterations?: string;
  readonly attempts?: string;
  readonly memory?: string;
  readonly metaReward?: string;
  readonly estimator?: string;
  readonly grouping?: string;
  readonly anchorScope?: string;
  readonly population?: string;
  readonly populationMode?: string;
  readonly earlyStop?: boolean;
}

/** Help text of each flag, so `train` and the README stay in step with the parser. */
export const OVERRIDE_FLAG_HELP = {
  config: 'JSON file with a partial train config (the shape `mage train --show-config` prints)',
  set: 'set any config value: --set ppo.lr=3e-5 --set rollout.groups=4 (value parsed as JSON, else a string)',
  iterations: 'override the preset’s iteration count',
  attempts: 'attempts per meta-episode in training (K)',
  memory: `what earlier attempts put in context: ${MEMORY_KINDS.join(' | ')}`,
  metaReward: 'differential | cumulative | single',
  estimator: 'gigpo | grpo',
  grouping: 'per-opponent (MAGE) | mixed (opponents mixed inside groups and anchors)',
  anchorScope: 'global | local (attempt index in every anchor)',
  population: 'opponent population: balanced | patterns | ood | fixed:<opponent-id>',
  populationMode: 'sampled (opponents drawn per iteration) | partition (fixed contiguous blocks)',
  earlyStop: 'keep playing attempts after a success',
} as const;

function parseSetValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** How many dotted keys a `--set` path may have (the config nests four levels deep). */
const MAX_SET_DEPTH = 8;

/** `a.b.c=value` → `{ a: { b: { c: value } } }`. */
export function setOverride(assignment: string): Record<string, unknown> {
  const eq = assignment.indexOf('=');
  const path = eq > 0 ? assignment.slice(0, eq).trim() : '';
  if (!/^[A-Za-z][\w-]*(\.[A-Za-z][\w-]*)*$/.test(path)) {
    throw new ConfigError(`--set expects <path>=<value> (e.g. ppo.lr=3e-5), got '${assignment}'.`, {
      path: '--set',
    });
  }
  const keys = path.split('.');
  if (keys.length > MAX_SET_DEPTH) {
    throw new ConfigError(
      `--set ${path}: the path has ${keys.length} keys; config paths have at most ${MAX_SET_DEPTH} (see \`mage train --show-config\`).`,
      { path: '--set' },
    );
  }
  const text = assignment.slice(eq + 1);
  if (text.trim() === '') {
    throw new ConfigError(
      `--set ${path}= has no value; write --set ${path}=<value> (an empty string is --set ${path}='""').`,
      { path },
    );
  }
  let out: Record<string, unknown> = { [keys.at(-1) as string]: parseSetValue(text) };
  for (const key of keys.slice(0, -1).reverse()) out = { [key]: out };
  return out;
}

function readConfigFile(file: string): Record<string, unknown> {
  return readJsonCheckedSync(file, {
    what: '--config file',
    fix: 'pass a JSON object with part of the train config (the shape `mage train --show-config` prints)',
    kind: 'config',
    schema: z.record(z.string(), z.unknown()),
  });
}

/** The named flags as a partial config. */
function namedOverrides(f: OverrideFlags): TrainConfigInput {
  const rollout: Record<string, unknown> = {};
  const advantage: Record<string, unknown> = {};
  const population: Record<string, unknown> = {};
  const train: Record<string, unknown> = {};
  if (f.iterations !== undefined)
    train.iterations = positiveInt(f.iterations, '--iterations', CONFIG_LIMITS.iterations);
  if (f.attempts !== undefined) rollout.attempts = positiveInt(f.attempts, '--attempts', 20);
  if (f.memory !== undefined) rollout.memory = oneOf(f.memory, '--memory', MEMORY_KINDS);
  if (f.earlyStop === false) rollout.earlyStop = false;
  if (f.metaReward !== undefined)
    advantage.metaReward = oneOf(f.metaReward, '--meta-reward', ['differential', 'cumulative', 'single']);
  if (f.estimator !== undefined) advantage.estimator = oneOf(f.estimator, '--estimator', ['gigpo', 'grpo']);
  if (f.grouping !== undefined)
    advantage.grouping = oneOf(f.grouping, '--grouping', ['per-opponent', 'mixed']);
  if (f.anchorScope !== undefined)
    advantage.anchorScope = oneOf(f.anchorScope, '--anchor-scope', ['global', 'local']);
  if (f.population !== undefined) {
    const [preset, opponent] = f.population.split(':', 2);
    if (preset === 'fixed') {
      if (!opponent) {
        throw new ConfigError(
          `--population fixed needs an opponent: fixed:<opponent-id>, got '${f.population}'.`,
          {
            path: '--population',
          },
        );
      }
      Object.assign(population, { preset: 'fixed', fixedOpponent: opponent });
    } else {
      Object.assign(population, { preset: f.population, fixedOpponent: null });
    }
  }
  if (f.populationMode !== undefined)
    population.mode = oneOf(f.populationMode, '--population-mode', ['sampled', 'partition']);
  const out: Record<string, unknown> = {};
  for (const [key, part] of Object.entries({ rollout, advantage, population, train })) {
    if (Object.keys(part).length > 0) out[key] = part;
  }
  return out as TrainConfigInput;
}

/** Everything the flags override, merged in order (config file, named flags, `--set`). */
export function overridesFromFlags(flags: OverrideFlags): TrainConfigInput {
  return mergeConfig(
    flags.config !== undefined ? readConfigFile(flags.config) : {},
    namedOverrides(flags),
    ...(flags.set ?? []).map(setOverride),
  ) as TrainConfigInput;
}

/** The identity of a run: chosen by its flag when given, else by the config values, else the flag default. */
export interface RunIdentity {
  readonly env: string;
  readonly method: string;
  readonly preset: string;
  readonly seed: string;
}

/**
 * Identity from the flags and the override values. A flag the user typed wins (a different value inside
 * `--config`/`--set` is then refused by the config resolution); a flag left at its default yields to
 * the config values, so `--show-config` output fed back with `--config` reproduces the run.
 */
export function identityOf(
  flags: RunIdentity,
  typed: (flag: keyof RunIdentity) => boolean,
  overrides: TrainConfigInput,
): RunIdentity {
  const pick = (flag: keyof RunIdentity, inConfig: unknown): string =>
    typed(flag) || inConfig === undefined ? flags[flag] : String(inConfig);
  return {
    env: pick('env', overrides.env?.id),
    method: pick('method', overrides.method),
    preset: pick('preset', overrides.preset),
    seed: pick('seed', overrides.seed),
  };
}
