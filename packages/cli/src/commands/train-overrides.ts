/**
 * `mage train` / `mage eval` config overrides from the command line: the ablation switches of the paper
 * as named flags, `--config <file.json>` (a partial config) and `--set <path>=<value>` for any other
 * value. Layering, lowest first: preset → env → method → config file → named flags → `--set`. The merged
 * result is validated by `resolveTrainConfig`, whose errors name the config path.
 */

import { ConfigError, readJsonCheckedSync } from '@mage-rl/core';
import {
  type AblationSwitches,
  CONFIG_LIMITS,
  MEMORY_KINDS,
  mergeConfig,
  overrideAt,
  switchOverrides,
  type TrainConfigInput,
} from '@mage-rl/recipes';
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

/** A `--set` or `--grid` value: JSON when it parses, else the text itself. */
export function parseSetValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Whether `path` is a dotted config path (`ppo.lr`). */
export const isConfigPath = (path: string): boolean => /^[A-Za-z][\w-]*(\.[A-Za-z][\w-]*)*$/.test(path);

/** How many dotted keys a `--set` path may have (the config nests four levels deep). */
const MAX_SET_DEPTH = 8;

/** `a.b.c=value` → `{ a: { b: { c: value } } }`; errors name `flag`. */
export function setOverride(assignment: string, flag = '--set'): TrainConfigInput {
  const eq = assignment.indexOf('=');
  const path = eq > 0 ? assignment.slice(0, eq).trim() : '';
  if (!isConfigPath(path)) {
    throw new ConfigError(`${flag} expects <path>=<value> (e.g. ppo.lr=3e-5), got '${assignment}'.`, {
      path: flag,
    });
  }
  const keys = path.split('.');
  if (keys.length > MAX_SET_DEPTH) {
    throw new ConfigError(
      `${flag} ${path}: the path has ${keys.length} keys; config paths have at most ${MAX_SET_DEPTH} (see \`mage train --show-config\`).`,
      { path: flag },
    );
  }
  const text = assignment.slice(eq + 1);
  if (text.trim() === '') {
    throw new ConfigError(
      `${flag} ${path}= has no value; write ${flag} ${path}=<value> (an empty string is ${flag} ${path}='""').`,
      { path },
    );
  }
  return overrideAt(keys, parseSetValue(text));
}

/** Env options from repeated `--option key=value` flags (`key.sub=value` nests). */
export function envOptionsOf(assignments: readonly string[] = []): Record<string, unknown> {
  return assignments.reduce<Record<string, unknown>>(
    (o, a) => mergeConfig(o, setOverride(a, '--option')),
    {},
  );
}

function readConfigFile(file: string): Record<string, unknown> {
  return readJsonCheckedSync(file, {
    what: '--config file',
    fix: 'pass a JSON object with part of the train config (the shape `mage train --show-config` prints)',
    kind: 'config',
    schema: z.record(z.string(), z.unknown()),
  });
}

/** `--population`: a preset name, or `fixed:<opponent-id>`. */
function populationFlag(text: string): AblationSwitches['population'] {
  const [preset, opponent] = text.split(':', 2);
  if (preset !== 'fixed') return { preset: text, fixedOpponent: null };
  if (!opponent) {
    throw new ConfigError(`--population fixed needs an opponent: fixed:<opponent-id>, got '${text}'.`, {
      path: '--population',
    });
  }
  return { preset: 'fixed', fixedOpponent: opponent };
}

/** The named flags as the recipes' ablation switches. */
function namedOverrides(f: OverrideFlags): TrainConfigInput {
  const pick = <T extends string>(value: string | undefined, flag: string, allowed: readonly T[]) =>
    value === undefined ? undefined : oneOf(value, flag, allowed);
  const count = (value: string | undefined, flag: string, max: number) =>
    value === undefined ? undefined : positiveInt(value, flag, max);
  return switchOverrides({
    iterations: count(f.iterations, '--iterations', CONFIG_LIMITS.iterations),
    attempts: count(f.attempts, '--attempts', 20),
    memory: pick(f.memory, '--memory', MEMORY_KINDS),
    earlyStop: f.earlyStop === false ? false : undefined,
    metaReward: pick(f.metaReward, '--meta-reward', ['differential', 'cumulative', 'single']),
    estimator: pick(f.estimator, '--estimator', ['gigpo', 'grpo']),
    grouping: pick(f.grouping, '--grouping', ['per-opponent', 'mixed']),
    anchorScope: pick(f.anchorScope, '--anchor-scope', ['global', 'local']),
    population: f.population === undefined ? undefined : populationFlag(f.population),
    populationMode: pick(f.populationMode, '--population-mode', ['sampled', 'partition']),
  });
}

/** Everything the flags override, merged in order (config file, named flags, `--set`). */
export function overridesFromFlags(flags: OverrideFlags): TrainConfigInput {
  return mergeConfig(
    flags.config !== undefined ? readConfigFile(flags.config) : {},
    namedOverrides(flags),
    ...(flags.set ?? []).map((a) => setOverride(a)),
  ) as TrainConfigInput;
}

/** The identity of a run: chosen by its flag when given, else by the config values, else the flag default. */
export interface RunIdentity {
  readonly env: string;
  readonly method: string;
  /** Undefined: neither the flag nor the config values name one (the env's recipe preset is used). */
  readonly preset?: string | undefined;
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
  const pick = <K extends keyof RunIdentity>(flag: K, inConfig: unknown): RunIdentity[K] | string =>
    typed(flag) || inConfig === undefined ? flags[flag] : String(inConfig);
  return {
    env: pick('env', overrides.env?.id) as string,
    method: pick('method', overrides.method) as string,
    preset: pick('preset', overrides.preset),
    seed: pick('seed', overrides.seed) as string,
  };
}
