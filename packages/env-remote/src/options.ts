/** The options every remote env shares, and their validation into `ConfigError`s. */

import { ConfigError, firstIssue } from '@mage-rl/core';
import { z } from 'zod';
import type { RetryPolicy } from './http/json-client';

const httpUrl = z
  .string()
  .min(1)
  .refine((u) => {
    try {
      const { protocol } = new URL(u);
      return protocol === 'http:' || protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an http:// or https:// address such as http://127.0.0.1:36001');

/** Connection options of every remote env (defaults here and only here). */
export const remoteConnectionShape = {
  /** The env server's base address (`--env-url`). */
  url: httpUrl,
  /** Whole-request limit in milliseconds (an ALFWorld reset loads a game: seconds). */
  timeoutMs: z.number().int().min(100).max(3_600_000).default(60_000),
  /** Further tries after a connection error, with exponential backoff. */
  retries: z.number().int().min(0).max(20).default(4),
  /** Wait before the first retry in milliseconds; doubled before each next one. */
  retryDelayMs: z.number().int().min(0).max(60_000).default(250),
  /** Most instances this env keeps on the server at once (one per running attempt). */
  maxInstances: z.number().int().min(1).max(100_000).default(256),
};

export type RemoteConnectionOptions = {
  readonly url: string;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly retryDelayMs: number;
  readonly maxInstances: number;
};

export function retryPolicy(o: RemoteConnectionOptions): RetryPolicy {
  return { timeoutMs: o.timeoutMs, retries: o.retries, retryDelayMs: o.retryDelayMs };
}

/** A half-open range `[start, end)` of task indices, as JSON `[start, end]`. */
export const taskRange = z
  .tuple([z.number().int().min(0), z.number().int().min(1)])
  .refine(([a, b]) => b > a, 'the end must be greater than the start ([start, end), end exclusive)');

/**
 * The options of an env that plays tasks of a server (ALFWorld, WebShop): the connection, the turn limit
 * and the task-index ranges of the three splits, with the env's defaults.
 */
export function remoteTaskShape(defaults: {
  readonly maxTurns: number;
  readonly trainTasks: [number, number];
  readonly inDomainTasks: [number, number];
}) {
  return {
    ...remoteConnectionShape,
    maxTurns: z.number().int().min(1).max(200).default(defaults.maxTurns),
    split: z.enum(['train', 'in-domain', 'out-of-domain']).default('train'),
    trainTasks: taskRange.default(defaults.trainTasks),
    inDomainTasks: taskRange.default(defaults.inDomainTasks),
    outOfDomainTasks: taskRange.nullable().default(null),
  };
}

/** Parses `input` with `schema`; the first problem becomes a `ConfigError` naming `<envId>.<option>`. */
export function validateRemoteOptions<T extends z.ZodType>(
  envId: string,
  schema: T,
  input: unknown,
): z.output<T> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const { path: key, message } = firstIssue(result.error);
  const path = key === '' ? envId : `${envId}.${key}`;
  const hint =
    key === 'url'
      ? ` Give the server's address with --env-url <http://host:port> (or env.options.url in a config).`
      : '';
  const known =
    issue?.code === 'unrecognized_keys' ? ` Known options: ${Object.keys(shapeOf(schema)).join(', ')}.` : '';
  throw new ConfigError(`Invalid ${envId} option '${path}': ${message}.${known}${hint}`, {
    path,
  });
}

function shapeOf(schema: z.ZodType): Record<string, unknown> {
  const shape: unknown = 'shape' in schema ? schema.shape : undefined;
  return typeof shape === 'object' && shape !== null ? (shape as Record<string, unknown>) : {};
}

/** The task index of seed `seed` in `[start, end)`. */
export function taskIndex(seed: number, [start, end]: readonly [number, number]): number {
  return start + (Math.abs(Math.trunc(seed)) % (end - start));
}

const CONNECTION_KEYS = Object.keys(remoteConnectionShape);

/**
 * Splits the options of an env played on a `mage env-serve` server into the connection (validated, with
 * its defaults) and the env's own options.
 */
export function splitConnectionOptions(
  envId: string,
  options: Readonly<Record<string, unknown>>,
): { connection: RemoteConnectionOptions; rest: Record<string, unknown> } {
  const picked: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(options)) (CONNECTION_KEYS.includes(k) ? picked : rest)[k] = v;
  const connection = validateRemoteOptions(envId, z.strictObject(remoteConnectionShape), picked);
  return { connection, rest };
}
