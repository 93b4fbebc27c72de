/**
 * OpenEnv's wire format (meta-pytorch/OpenEnv, `openenv.core.env_server`), as both halves of this package
 * use it: the typed WebSocket messages of `/ws`, the `{observation, reward, done}` result of a reset or a
 * step, the error codes, and the text-game convention of its `textarena_env` (action `{message}`,
 * observation `{prompt, messages, current_player_id, legal_players, info}`). The protocol as this
 * package speaks it: architecture/env-remote.md.
 */

import { z } from 'zod';
import { servedResetExtra } from '../served-protocol';

const jsonObject = z.record(z.string(), z.unknown());

/** The codes of a WebSocket `error` message. */
export const OPENENV_ERROR_CODES = [
  'INVALID_JSON',
  'UNKNOWN_TYPE',
  'VALIDATION_ERROR',
  'EXECUTION_ERROR',
  'CAPACITY_REACHED',
  'FACTORY_ERROR',
  'SESSION_ERROR',
] as const;
export type OpenEnvErrorCode = (typeof OPENENV_ERROR_CODES)[number];

/** Messages a client sends on `/ws` (no other fields are allowed). */
export const openEnvClientMessage = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('reset'), data: jsonObject.default({}) }),
  z.strictObject({ type: z.literal('step'), data: jsonObject }),
  z.strictObject({ type: z.literal('state') }),
  z.strictObject({ type: z.literal('close') }),
]);
export type OpenEnvClientMessage = z.output<typeof openEnvClientMessage>;
export const OPENENV_MESSAGE_TYPES = ['reset', 'step', 'state', 'close'] as const;

/** The result of a reset or a step: the observation without `reward`, `done` and `metadata`, beside them. */
export const openEnvResult = z.object({
  observation: jsonObject,
  reward: z.union([z.number(), z.boolean()]).nullable().optional(),
  done: z.boolean().optional(),
  metadata: jsonObject.optional(),
});
export type OpenEnvResult = z.output<typeof openEnvResult>;

/** Messages a server sends on `/ws`. */
export const openEnvServerMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('observation'), data: openEnvResult }),
  z.object({ type: z.literal('state'), data: jsonObject }),
  z.object({
    type: z.literal('error'),
    data: z.looseObject({ message: z.string().optional(), code: z.string().optional() }),
  }),
]);
export type OpenEnvServerMessage = z.output<typeof openEnvServerMessage>;

/**
 * The `data` of a reset: OpenEnv's `seed` and `episode_id`, plus the fields `mage env-serve` reads (the
 * same as in its WebShop dialect). Other fields are ignored, as an OpenEnv server ignores the keyword
 * arguments its environment's `reset` does not take.
 */
export const openEnvResetData = servedResetExtra
  .extend({
    seed: z.number().int().min(0).max(0xffffffff).nullable().optional(),
    episode_id: z.string().max(255).nullable().optional(),
  })
  .loose();

/** `textarena_env`'s action: the text of the move. */
export const textArenaAction = z.strictObject({
  message: z.string().max(100_000),
  metadata: jsonObject.optional(),
});

export const textArenaMessage = z.object({
  sender_id: z.number().int(),
  content: z.string(),
  category: z.string(),
});

/** `textarena_env`'s observation (in a result without `reward` and `done`, which sit beside it). */
export const textArenaObservation = z.object({
  prompt: z.string(),
  messages: z.array(textArenaMessage),
  current_player_id: z.number().int(),
  legal_players: z.array(z.number().int()),
  info: jsonObject,
  done: z.boolean().optional(),
  reward: z.number().nullable().optional(),
  metadata: jsonObject.optional(),
});

/** `textarena_env`'s state, as `mage env-serve` fills it. */
export const textArenaState = z.looseObject({
  episode_id: z.string().nullable(),
  step_count: z.number().int().min(0),
  env_id: z.string(),
  num_players: z.number().int(),
  max_turns: z.number().int().nullable(),
  turn: z.number().int(),
  last_reward: z.number(),
  last_info: jsonObject,
});

/** `GET /schema`: JSON schemas of the action, the observation and the state. */
export const openEnvSchemaAnswer = z.object({
  action: jsonObject,
  observation: jsonObject,
  state: jsonObject.optional(),
});

/** The ws:// (wss://) address of a server's `/ws` from its http:// (https://) base address. */
export function openEnvSocketUrl(base: string): string {
  const trimmed = base.replace(/\/+$/, '');
  return `${trimmed.replace(/^http(s?):\/\//i, (_m, s: string) => `ws${s}://`)}/ws`;
}
