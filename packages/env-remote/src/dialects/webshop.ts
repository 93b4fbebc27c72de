/**
 * AgentGym's WebShop dialect (`agentenv-webshop`, read at commit 3ef9235 of WooooDyy/AgentGym):
 *
 * - `POST /create` → an integer instance id;
 * - `POST /reset {env_idx, session_id}` → `[observation, null]` (`session_id` selects the goal);
 * - `POST /step {env_idx, action}` → `{state, reward, done, info}` (`action` is `search[…]` or `click[…]`);
 * - `GET /available_actions?env_idx=` → `{has_search_bar, clickables}`;
 * - `GET /instruction_text?env_idx=` → the goal's text; `GET /observation?env_idx=` → the page text;
 * - `POST /close {env_idx}` → frees the instance (absent from AgentGym's server: a 404 is tolerated);
 * - `GET /` → a health answer.
 *
 * `mage env-serve` speaks the same dialect, with optional extra fields `JsonClient` callers may send.
 */

import { z } from 'zod';
import { RemoteEnvError } from '../errors';
import type { JsonClient } from '../http/json-client';
import type { InstanceBackend } from '../pool';

export const webShopStepSchema = z.object({
  state: z.string(),
  reward: z.number(),
  done: z.boolean(),
  info: z.unknown().optional(),
});
export type WebShopStep = z.infer<typeof webShopStepSchema>;

export const webShopActionsSchema = z.object({
  has_search_bar: z.boolean(),
  clickables: z.array(z.string()),
});
export type WebShopActions = z.infer<typeof webShopActionsSchema>;

/** `[observation, extra]`: AgentGym sends `null` as the extra; `mage env-serve` sends its episode facts. */
export const webShopResetSchema = z.tuple([z.string(), z.unknown()]);

const instanceId = z.number().int().min(0);

/** The requests of the WebShop dialect over one server. */
export class WebShopDialect {
  constructor(readonly client: JsonClient) {}

  create(): number {
    return this.client.post('/create', {}, instanceId, { idempotent: true });
  }

  /** The page text after reset, and what else the server sent beside it. */
  reset(
    envIdx: number,
    sessionId: number,
    extra: Record<string, unknown> = {},
  ): { observation: string; extra: unknown } {
    const [observation, more] = this.client.post(
      '/reset',
      { env_idx: envIdx, session_id: sessionId, ...extra },
      webShopResetSchema,
      { idempotent: true },
    );
    return { observation, extra: more };
  }

  step(envIdx: number, action: string, extra: Record<string, unknown> = {}): WebShopStep {
    return this.client.post('/step', { env_idx: envIdx, action, ...extra }, webShopStepSchema, {
      idempotent: false,
    });
  }

  availableActions(envIdx: number): WebShopActions {
    return this.client.get('/available_actions', { env_idx: envIdx }, webShopActionsSchema);
  }

  instructionText(envIdx: number): string {
    return this.client.get('/instruction_text', { env_idx: envIdx }, z.string());
  }

  /** Frees the instance; a server without `/close` (AgentGym's) answers 404 or 405, which is fine. */
  close(envIdx: number): void {
    try {
      this.client.post('/close', { env_idx: envIdx }, z.unknown(), { idempotent: true });
    } catch (error) {
      const status = error instanceof RemoteEnvError ? error.context.status : undefined;
      if (status !== 404 && status !== 405) throw error;
    }
  }
}

/**
 * A WebShop-dialect connection as the instance pool uses it: the dialect over `client`, and the backend
 * that creates and closes the pool's instances through it.
 */
export function openWebShop(client: JsonClient): {
  dialect: WebShopDialect;
  backend: Omit<InstanceBackend, 'label'>;
} {
  const dialect = new WebShopDialect(client);
  return { dialect, backend: { create: () => dialect.create(), close: (id) => dialect.close(id) } };
}
