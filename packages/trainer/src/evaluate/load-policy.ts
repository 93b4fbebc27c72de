/**
 * A policy from a spec: `teacher`, a run directory (its latest checkpoint), a model directory (mage-tiny or
 * a Hugging Face checkpoint), or the URL of an OpenAI-compatible server (with the served model's name).
 */

import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigError, createRemotePolicy, type PolicyV1, pathExists } from '@mage-rl/core';
import { loadModelSource } from '@mage-rl/learner';
import {
  createEnvById,
  createTeacher,
  MEMORY_KINDS,
  METHOD_IDS,
  METHODS,
  type MemoryKind,
  type MethodId,
  type TrainConfigInput,
} from '@mage-rl/recipes';
import { z } from 'zod';
import { modelSourceOf, readRunRecord } from '../run-record/run-record';

export interface LoadPolicyOptions {
  /** `teacher`, a run or model directory, or a server URL (`http://host:port/v1`). */
  readonly policy: string;
  /** The env the teacher plays (and its options). */
  readonly env: string;
  readonly envOptions?: Readonly<Record<string, unknown>>;
  readonly style?: 'verbose' | 'compact';
  /** With a server URL: the served model (or adapter) name. */
  readonly model?: string;
  /** With a server URL: its API key. */
  readonly apiKey?: string;
  /** The option the spec came from, as errors name it (default `policy`; a note donor's is `noteDonor`). */
  readonly option?: string;
}

export interface LoadedPolicy {
  readonly policy: PolicyV1;
  /** Frees the model (a no-op for the teacher and a server). */
  readonly dispose: () => Promise<void>;
}

/** The policy `options.policy` names. Errors name the option (`option`, `model`) in their `path`. */
export async function loadPolicy(options: LoadPolicyOptions): Promise<LoadedPolicy> {
  const spec = options.policy;
  const option = options.option ?? 'policy';
  if (/^https?:\/\//.test(spec)) {
    if (!options.model)
      throw new ConfigError(`\`${option}\` with a server URL needs \`model\` <served model name>.`, {
        path: 'model',
      });
    const policy = createRemotePolicy({
      baseURL: spec,
      model: options.model,
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    });
    return { policy, dispose: async () => {} };
  }
  if (spec === 'teacher') {
    const env = createEnvById(options.env, options.envOptions ?? {});
    const policy = createTeacher(env, options.style ? { style: options.style } : {});
    return { policy, dispose: async () => {} };
  }
  const dir = resolve(spec);
  const info = await stat(dir).catch(() => null);
  if (info === null || !info.isDirectory()) {
    throw new ConfigError(
      `\`${option}\` '${spec}': ${info === null ? 'no such directory' : 'is a file, not a directory'} (${dir}); \`${option}\` takes 'teacher', a server URL (with \`model\`), a mage-tiny or Hugging Face model directory, or a run directory (its latest checkpoint).`,
      { path: option, context: { dir } },
    );
  }
  // Evaluation only samples: the weights are held once, by the learner's runner.
  const { learner } = await loadModelSource(await modelSourceOf(dir), { inferenceOnly: true });
  return { policy: learner.policy, dispose: () => learner.dispose() };
}

/**
 * The keys of the `eval` section that belong to a run's task: what it is evaluated on and whether an
 * attempt after a success is played, not how often or how it samples.
 */
const TASK_EVAL_KEYS: readonly string[] = [
  'envOptions',
  'outOfDomainEnvOptions',
  'inDomain',
  'outOfDomain',
  'earlyStop',
];

/** The parts of a run's saved config that `trainedWith` reads; a part in another shape reads as absent. */
const savedTaskSchema = z
  .object({
    env: z
      .object({ options: z.record(z.string(), z.unknown()).optional().catch(undefined) })
      .loose()
      .optional()
      .catch(undefined),
    eval: z.record(z.string(), z.unknown()).optional().catch(undefined),
    rollout: z.object({ memory: z.unknown() }).loose().optional().catch(undefined),
  })
  .loose();

/** What a run directory trained with, as far as its evaluation needs it. */
export interface TrainedWithV1 {
  readonly method: MethodId;
  readonly memory: MemoryKind;
  /** The env id it trained on. */
  readonly env: string;
  /**
   * Its task and evaluation protocol as config values: `env.options` and the `eval` section's env options,
   * opponents and early stop (Kuhn Poker's `new-deal` mode, Sokoban's room size, every attempt played, …),
   * which a preset alone does not give.
   */
  readonly task: TrainConfigInput;
}

/**
 * What a run directory trained with (its config.json); undefined for anything else (the teacher, a server,
 * a model directory) or a record this version does not read.
 */
export async function trainedWith(policy: string): Promise<TrainedWithV1 | undefined> {
  if (policy === 'teacher' || /^https?:\/\//.test(policy)) return undefined;
  const dir = resolve(policy);
  if (!(await pathExists(join(dir, 'config.json')))) return undefined;
  const record = await readRunRecord(dir).catch(() => undefined);
  const method = METHOD_IDS.find((id) => id === record?.method);
  if (!record?.config || method === undefined || record.env === null) return undefined;
  const saved = savedTaskSchema.parse(record.config);
  const memory = MEMORY_KINDS.find((kind) => kind === saved.rollout?.memory) ?? METHODS[method].memory;
  const protocol = Object.entries(saved.eval ?? {}).filter(([key]) => TASK_EVAL_KEYS.includes(key));
  const task: TrainConfigInput = {
    env: { options: saved.env?.options ?? {} },
    eval: Object.fromEntries(protocol),
  };
  return { method, memory, env: record.env, task };
}
