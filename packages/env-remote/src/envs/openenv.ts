/**
 * Any text environment on an OpenEnv server (meta-pytorch/OpenEnv), played over its WebSocket sessions:
 * a task seed picks a reset seed in the split's range, every attempt of a meta-episode resets the same
 * seed (with the attempt's index beside it), the agent's `<action>…</action>` text goes in the action's
 * text field, and the observation's text fields (`textarena_env`'s `prompt` and `messages` by default)
 * are what the agent reads. The attempt succeeds when it ends with a reward above `successAbove`.
 */

import type {
  AttemptOutcome,
  EnvObservationV1,
  EnvTaskV1,
  EnvV1,
  JsonObject,
  ParsedAction,
} from '@mage-rl/core';
import { z } from 'zod';
import { type OpenEnvDialect, type OpenEnvView, openOpenEnv } from '../dialects/openenv';
import { remoteTaskShape } from '../options';
import { firstActionBody, shorten } from '../text';
import { type RemoteEnvParts, RemoteEpisode, type RemoteStepResult, remoteEnv } from './remote-episode';
import type { RemoteStateBase } from './remote-game';

export const OPENENV_ENV_ID = 'openenv';

const fieldName = z.string().min(1).max(200);

/**
 * Options. Training seeds are 1,000,000 and up and in-domain evaluation seeds below, so the two never
 * share a reset seed; a server with a finite task list maps seeds to its tasks itself.
 */
export const openEnvOptionsSchema = z.strictObject({
  ...remoteTaskShape({ maxTurns: 30, trainTasks: [1_000_000, 2_147_483_647], inDomainTasks: [0, 1_000_000] }),
  /** The action field that takes the agent's text (`textarena_env`: `message`). */
  actionField: fieldName.default('message'),
  /** The observation field with the text the agent reads (`textarena_env`: `prompt`). */
  promptField: fieldName.default('prompt'),
  /** An observation field with messages appended to that text (`textarena_env`: `messages`); null: none. */
  messagesField: fieldName.nullable().default('messages'),
  /** An observation field with facts kept in the observation's info (`textarena_env`: `info`); null: none. */
  infoField: fieldName.nullable().default('info'),
  /** The rules the agent reads before the first turn (the server's own text comes with each observation). */
  rules: z.string().max(20_000).nullable().default(null),
  /** An attempt that ends with a reward above this succeeds. */
  successAbove: z.number().finite().default(0),
});
export type OpenEnvOptions = z.output<typeof openEnvOptionsSchema>;

export interface OpenEnvState extends RemoteStateBase {
  /** The reset seed of the task. */
  readonly seed: number;
  /** The text the agent reads now. */
  readonly text: string;
  /** The observation's info field. */
  readonly info: Readonly<Record<string, unknown>>;
  /** The reward of the last step (0 after a reset). */
  readonly lastReward: number;
  /** The server's state once the attempt ended (`episode_id`, `step_count`, …); null before. */
  readonly serverState: Readonly<Record<string, unknown>> | null;
}

export const OPENENV_OUTCOMES = {
  success: { success: true, draw: false, truncated: false, label: 'success' },
  failure: { success: false, draw: false, truncated: false, label: 'failure' },
  truncated: { success: false, draw: false, truncated: true, label: 'truncated' },
} as const satisfies Record<string, AttemptOutcome>;

export function openEnvRules(maxTurns: number): string {
  return [
    'You play a text environment served over OpenEnv. Each turn you read what it shows you now.',
    'Answer with exactly one move inside <action>…</action>, for example <action>your move</action>; the text between the tags is sent as it is.',
    `An answer without the tags wastes the turn. You have ${maxTurns} turns.`,
  ].join('\n');
}

/** The move of a response: the trimmed text of its first `<action>` block, which must not be empty. */
export function parseOpenEnvAction(response: string): ParsedAction<string> {
  const block = firstActionBody(response);
  if (!block.ok) return { valid: false, reason: block.reason };
  const text = block.body.trim();
  if (text === '') return { valid: false, reason: 'empty action' };
  return { valid: true, action: text, text };
}

/** The env on the OpenEnv server at `options.url` (contacted on the first reset only: `/schema`, then `/ws`). */
export function createOpenEnv(input: unknown): EnvV1<OpenEnvState, string> {
  return remoteEnv({
    id: OPENENV_ENV_ID,
    label: 'OpenEnv',
    schema: openEnvOptionsSchema,
    input,
    noOutOfDomain: 'an OpenEnv server has one seed space',
    open: (client, o) => openOpenEnv(client, o),
    createEpisode: (task, seed, env) => new OpenEnvEpisode(task, env, seed),
  });
}

class OpenEnvEpisode extends RemoteEpisode<OpenEnvState, OpenEnvDialect, OpenEnvOptions> {
  constructor(
    task: EnvTaskV1<OpenEnvState, string>,
    env: RemoteEnvParts<OpenEnvOptions, OpenEnvDialect>,
    private readonly seed: number,
  ) {
    super(task, env, {
      seed,
      text: '',
      info: {},
      actions: [],
      done: true,
      score: 0,
      lastReward: 0,
      serverState: null,
    });
  }

  rules(): string {
    return this.options.rules ?? openEnvRules(this.options.maxTurns);
  }

  parse(response: string): ParsedAction<string> {
    return parseOpenEnvAction(response);
  }

  protected resetOn(dialect: OpenEnvDialect, instance: number, attempt: number): OpenEnvState {
    const view = dialect.reset(instance, this.seed, attempt);
    return this.stateOf(view, 0, view.done ? dialect.state(instance) : null);
  }

  protected stepOn(
    dialect: OpenEnvDialect,
    instance: number,
    action: string,
    state: OpenEnvState,
  ): RemoteStepResult<OpenEnvState> {
    const view = dialect.step(instance, action);
    const next = this.stateOf(view, state.score + view.reward, view.done ? dialect.state(instance) : null);
    return { next, reward: view.reward, event: `${shorten(action)} → ${shorten(view.latest, 160)}` };
  }

  private stateOf(
    view: OpenEnvView,
    score: number,
    serverState: Record<string, unknown> | null,
  ): OpenEnvState {
    return {
      seed: this.seed,
      text: view.text,
      info: view.info,
      actions: [],
      done: view.done,
      score,
      lastReward: view.reward,
      serverState,
    };
  }

  protected render(state: OpenEnvState): string {
    return state.text;
  }

  protected outcome(state: OpenEnvState, truncated: boolean): AttemptOutcome {
    if (truncated) return OPENENV_OUTCOMES.truncated;
    return state.lastReward > this.options.successAbove ? OPENENV_OUTCOMES.success : OPENENV_OUTCOMES.failure;
  }

  protected observation(s: OpenEnvState): EnvObservationV1 {
    return {
      text: s.text,
      anchor: `openenv:${s.text}`,
      info: {
        seed: s.seed,
        reward: s.lastReward,
        server: s.info as JsonObject,
        ...(s.serverState ? { serverState: s.serverState as JsonObject } : {}),
      },
    };
  }
}
