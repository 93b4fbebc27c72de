/** The flags the learning commands (`pretrain`, `train`, `eval`, `experiment`) share: env, env package, seed. */

import { ConfigError } from '@mage-rl/core';
import {
  envRegistry,
  METHOD_IDS,
  METHODS,
  REMOTE_ENV_IDS,
  RUN_PRESET_IDS,
  type RunPresetId,
  type TrainConfigInput,
} from '@mage-rl/recipes';
import type { Command } from 'commander';
import { oneOf } from './game-options';

/**
 * Which envs a command takes: `all`; `warm-start`, those mage-tiny can be warm-started on (a teacher in
 * their definition: `pretrain`); `in-process`, those not already on a server (`env-serve`).
 */
export type EnvChoice = 'all' | 'warm-start' | 'in-process';

/** Help of `--env`: the ids of the env registry the command takes. */
export function envFlagHelp(which: EnvChoice = 'all'): string {
  const ids = envRegistry()
    .definitions.filter((d) =>
      which === 'warm-start'
        ? d.warmStart !== undefined
        : which === 'in-process'
          ? !REMOTE_ENV_IDS.includes(d.id)
          : true,
    )
    .map((d) => d.id);
  return `${ids.join(' | ')}, or the env of --env-package`;
}

/**
 * Help of `--preset`: the run presets and, since the flag has no fixed default, the preset each env's recipe
 * chooses when it is not given (`mage train --env treasure --seed 13` runs Treasure's recipe).
 */
export function presetFlagHelp(what = 'run preset'): string {
  const byPreset = new Map<string, string[]>();
  for (const d of envRegistry().definitions) {
    if (d.recipe) byPreset.set(d.recipe.preset, [...(byPreset.get(d.recipe.preset) ?? []), d.id]);
  }
  const recipes = [...byPreset].map(([preset, ids]) => `${preset} for ${ids.join(', ')}`).join('; ');
  return `${what}: ${RUN_PRESET_IDS.join(' | ')} (default: the env's recipe preset${recipes ? ` — ${recipes}` : ''}; an --env-package env's own; else laptop)`;
}

/** `--preset` as typed, checked, as a trainer option; none when not given (the env's recipe preset is used). */
export function presetOption(preset: string | undefined): { readonly preset?: RunPresetId } {
  return preset === undefined ? {} : { preset: oneOf(preset, '--preset', RUN_PRESET_IDS) };
}

/** The methods that update the model, the only ones `train` and `experiment` take (the others: `eval`). */
export const TRAINING_METHOD_IDS = METHOD_IDS.filter((id) => METHODS[id].trains);

/** Help of `--env-package`. */
export const ENV_PACKAGE_HELP =
  'add the env of a package: an npm name (resolved from the working directory) or a path, exporting an EnvDefinitionV1 as `envDefinition` or default';

/** Help of `--env-url`. */
export const ENV_URL_HELP =
  "play the env on a server (sets env.options.url): an AgentGym server for alfworld / webshop, any OpenEnv server for openenv, or 'mage env-serve <env>' for the others";

/** `--env-url <url>` as a config override (`env.options.url`); nothing without it. */
export function envUrlOverride(url: string | undefined): TrainConfigInput {
  return url === undefined ? {} : { env: { options: { url } } };
}

/** `--env <id>` (default `tictactoe`) and `--env-package`, for commands that play one env. */
export function addEnvFlags(command: Command, which: EnvChoice = 'all'): Command {
  return command
    .option('--env <id>', envFlagHelp(which), 'tictactoe')
    .option('--env-package <name-or-path>', ENV_PACKAGE_HELP);
}

/** The env id the user chose: `--env` when typed, else the env of the env package; undefined for neither. */
export function chosenEnv(command: Command, env: string, packageEnv: string | undefined): string | undefined {
  return command.getOptionValueSource('env') !== 'default' ? env : packageEnv;
}

/**
 * The env id a learning command uses: `--env` when typed, else the env of the env package, else the
 * default of `--env`.
 */
export function envFlag(command: Command, env: string, packageEnv: string | undefined): string {
  return chosenEnv(command, env, packageEnv) ?? env;
}

/** The words the command line was called with after `mage`, quoted where they hold spaces. */
export const commandWords = (command: Command): string[] =>
  ((command.parent as { readonly rawArgs?: readonly string[] } | null)?.rawArgs ?? []).map((word) =>
    /\s/.test(word) ? `'${word}'` : word,
  );

/** A comma-separated list flag: trimmed, empty entries dropped. */
export const commaList = (text: string): string[] =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** `--seed`: a non-negative integer, or a `ConfigError`. */
export function seedOf(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0)
    throw new ConfigError(`--seed must be a non-negative integer, got '${value}'.`, { path: '--seed' });
  return n;
}
