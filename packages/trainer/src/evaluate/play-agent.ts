/**
 * A trained run as an opponent of the dashboard's play page: its latest checkpoint's policy, playing with
 * the run's method, memory, prompt layout and evaluation sampling (as `mage eval --policy <run>` does).
 */

import { basename, resolve } from 'node:path';
import { ConfigError, firstIssue, type GameModelV1, type OpponentV1, type PlayAgentV1 } from '@mage-rl/core';
import { loadModelSource } from '@mage-rl/learner';
import {
  createEnvById,
  envDefinition,
  evalPlayOptions,
  evaluateMethod,
  memoryLayoutOf,
  mergeConfig,
  resolveTrainConfig,
  type TrainConfig,
  trainConfigSchema,
} from '@mage-rl/recipes';
import { modelSourceOf, readRunRecord } from '../run-record/run-record';
import { memoryLimitsOfConfig } from '../train/memory-limits';

/** The run's resolved training config, from its record. */
async function runTrainConfig(dir: string): Promise<TrainConfig> {
  const saved = (await readRunRecord(dir)).config;
  if (saved === null) {
    throw new ConfigError(
      `\`agent\` '${dir}': its config.json has no training config (extra); is it a mage train run?`,
      {
        path: 'agent',
      },
    );
  }
  // A record written before `memory.budget` existed runs with the default budget.
  const config = mergeConfig({ memory: resolveTrainConfig().memory }, saved);
  const parsed = trainConfigSchema.safeParse(config);
  if (!parsed.success) {
    throw new ConfigError(
      `\`agent\` '${dir}': its config.json's training config is not one this version reads (${firstIssue(parsed.error).message}).`,
      { path: 'agent' },
    );
  }
  return parsed.data;
}

/** Loads a run directory as a play agent; `dispose` frees its model. */
export async function playAgentOf(
  spec: string,
): Promise<{ agent: PlayAgentV1; dispose: () => Promise<void> }> {
  const dir = resolve(spec);
  const config = await runTrainConfig(dir);
  const definition = envDefinition(config.env.id);
  const match = definition.opponents?.match;
  if (!match) {
    throw new ConfigError(
      `\`agent\` '${spec}': env '${config.env.id}' has no two-player game to play against a person.`,
      {
        path: 'agent',
      },
    );
  }
  const { learner } = await loadModelSource(await modelSourceOf(dir), {
    memory: memoryLimitsOfConfig(config),
    inferenceOnly: true,
  });
  const envOptions = { ...config.env.options, ...config.eval.envOptions };
  const agent: PlayAgentV1 = {
    id: basename(dir),
    name: `${config.method} (${basename(dir)})`,
    game: definition.id,
    model: match.model as GameModelV1<unknown, unknown>,
    async play(opponent: OpponentV1<unknown, unknown>, seed: number, attempts: number) {
      const result = await evaluateMethod({
        env: createEnvById(config.env.id, envOptions),
        policy: learner.policy,
        method: config.method,
        opponents: [opponent.id],
        makeOpponent: () => opponent,
        episodes: 1,
        attempts,
        memoryOptions: memoryLayoutOf(config),
        ...evalPlayOptions(config),
        seed,
      });
      return result.batch;
    },
  };
  return { agent, dispose: () => learner.dispose() };
}
