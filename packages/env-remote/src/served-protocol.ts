/**
 * The fields `mage env-serve` adds to the WebShop dialect so that a client can replay one of mage-rl's own
 * envs exactly as in-process (see the README's protocol table). Clients that do not know them (AgentGym's)
 * get plain WebShop answers: the observation text as `state`, the env reward, `done`.
 */

import { z } from 'zod';

const jsonObject = z.record(z.string(), z.unknown());

/** Extra fields of `POST /reset`. */
export const servedResetExtra = z.strictObject({
  /** The env the client plays: a server of another env refuses the reset. */
  env: z.string().min(1).max(200).optional(),
  attempt: z.number().int().min(0).max(1000).optional(),
  style: z.enum(['verbose', 'compact']).optional(),
  seat: z.enum(['first', 'second']).optional(),
  opponent: z.string().min(1).max(200).nullable().optional(),
  /** Env options (validated by the env); the server's own options when absent. */
  options: jsonObject.optional(),
});
export type ServedResetExtra = z.infer<typeof servedResetExtra>;

export const servedObservation = z.object({ text: z.string(), anchor: z.string(), info: jsonObject });

export const servedOutcome = z.object({
  success: z.boolean(),
  draw: z.boolean(),
  truncated: z.boolean(),
  label: z.string(),
});

/** The second element of the `POST /reset` answer. */
export const servedResetFacts = z.object({
  env: z.string(),
  observation: servedObservation,
  rules: z.string(),
  initialText: z.string(),
});

/** `POST /parse {env_idx, text}`: the env's parse of a response against the instance's state. */
export const servedParseAnswer = z.union([
  z.object({ valid: z.literal(true), action: z.unknown(), text: z.string() }),
  z.object({ valid: z.literal(false), reason: z.string() }),
]);

/** The `info` of a `POST /step` answer. */
export const servedStepInfo = z.object({
  observation: servedObservation,
  valid: z.boolean(),
  event: z.string(),
  outcome: servedOutcome.optional(),
  reveal: z.string().optional(),
});
