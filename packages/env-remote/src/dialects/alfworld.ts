/**
 * AgentGym's ALFWorld dialect (`agentenv-alfworld`, read at commit 3ef9235 of WooooDyy/AgentGym):
 *
 * - `POST /create` → `{id}`;
 * - `POST /reset {id, game, world_type}` → `{id, observation, available_actions, task_type}`; `game`
 *   indexes the server's game list (its train mapping, then its test mapping), `world_type` is `Text`;
 * - `POST /step {id, action}` → `{observation, reward, available_actions, done}` (`reward` is 1 once won);
 * - `GET /available_actions?id=` → the admissible commands; `GET /observation?id=` → the last observation;
 * - failures come back as `{error: "…"}` with HTTP 200; there is no `close`.
 */

import { z } from 'zod';
import type { JsonClient } from '../http/json-client';

export const alfWorldResetSchema = z.object({
  observation: z.string(),
  available_actions: z.array(z.string()),
  task_type: z.string().optional(),
});
export type AlfWorldReset = z.infer<typeof alfWorldResetSchema>;

export const alfWorldStepSchema = z.object({
  observation: z.string(),
  reward: z.number(),
  available_actions: z.array(z.string()),
  done: z.boolean(),
});
export type AlfWorldStep = z.infer<typeof alfWorldStepSchema>;

const created = z.object({ id: z.number().int().min(0) });

export class AlfWorldDialect {
  constructor(readonly client: JsonClient) {}

  create(): number {
    return this.client.post('/create', {}, created, { idempotent: true }).id;
  }

  reset(id: number, game: number, worldType: string): AlfWorldReset {
    return this.client.post('/reset', { id, game, world_type: worldType }, alfWorldResetSchema, {
      idempotent: true,
    });
  }

  step(id: number, action: string): AlfWorldStep {
    return this.client.post('/step', { id, action }, alfWorldStepSchema, { idempotent: false });
  }

  availableActions(id: number): string[] {
    return this.client.get('/available_actions', { id }, z.array(z.string()));
  }

  observation(id: number): string {
    return this.client.get('/observation', { id }, z.string());
  }
}
