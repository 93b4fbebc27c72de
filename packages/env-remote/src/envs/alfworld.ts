/**
 * ALFWorld (TextWorld household tasks from ALFRED) played on an AgentGym `agentenv-alfworld` server.
 * A task seed picks a game index in the split's range; every attempt of a meta-episode resets the same
 * game. The agent answers one admissible command per turn inside `<action>…</action>`; the attempt is
 * won when the server reports the task won.
 */

import type { AttemptOutcome, EnvObservationV1, EnvTaskV1, EnvV1, ParsedAction } from '@mage-rl/core';
import { z } from 'zod';
import { AlfWorldDialect } from '../dialects/alfworld';
import { remoteTaskShape } from '../options';
import { firstActionBody, normalizeCommand, shorten } from '../text';
import { type RemoteEnvParts, RemoteEpisode, type RemoteStepResult, remoteEnv } from './remote-episode';
import type { RemoteStateBase } from './remote-game';

export const ALFWORLD_ENV_ID = 'alfworld';

/**
 * Options. The game ranges follow AgentGym's server: its game list is the 2,420 games of its train
 * mapping, then the 200 of its test mapping (from ALFWorld's `valid_train`); it serves no unseen-scene
 * (`valid_unseen`) games, so `outOfDomainTasks` is unset unless a server provides them.
 */
export const alfWorldOptionsSchema = z.strictObject({
  ...remoteTaskShape({ maxTurns: 10, trainTasks: [0, 2420], inDomainTasks: [2420, 2620] }),
  worldType: z.enum(['Text', 'Embody', 'Hybrid']).default('Text'),
  /** Env reward of a won attempt (0 otherwise). */
  winReward: z.number().finite().default(10),
});
export type AlfWorldOptions = z.output<typeof alfWorldOptionsSchema>;

export interface AlfWorldState extends RemoteStateBase {
  readonly game: number;
  /** `pick_and_place_simple-…/trial_…` as the server names it. */
  readonly taskType: string;
  readonly observation: string;
  readonly won: boolean;
}

/** Commands never offered to the agent. */
const HIDDEN_COMMANDS = new Set(['help']);

export const ALFWORLD_OUTCOMES = {
  won: { success: true, draw: false, truncated: false, label: 'won' },
  lost: { success: false, draw: false, truncated: false, label: 'lost' },
  truncated: { success: false, draw: false, truncated: true, label: 'truncated' },
} as const satisfies Record<string, AttemptOutcome>;

export function alfWorldRules(maxTurns: number): string {
  return [
    'You are a robot in a household, acting through text (ALFWorld).',
    'The first observation describes the room and ends with your task ("Your task is to: …").',
    'Each turn you see what happened and the list of admissible commands.',
    'Answer with exactly one admissible command inside <action>…</action>, for example <action>go to countertop 1</action>.',
    'A command that is not in the list wastes the turn.',
    `You have ${maxTurns} turns to complete the task.`,
  ].join('\n');
}

/** The observation text the agent reads: what the server said, then the admissible commands. */
export function renderAlfWorld(state: AlfWorldState): string {
  const commands = state.actions.length > 0 ? state.actions.join(', ') : '(none)';
  return `${state.observation}\nAdmissible commands: ${commands}`;
}

/** ALFWorld on the server at `options.url` (the server is contacted on the first reset only). */
export function createAlfWorld(input: unknown): EnvV1<AlfWorldState, string> {
  return remoteEnv({
    id: ALFWORLD_ENV_ID,
    label: 'ALFWorld',
    schema: alfWorldOptionsSchema,
    input,
    noOutOfDomain: 'the AgentGym ALFWorld server has no unseen-scene games',
    open: (client) => {
      const dialect = new AlfWorldDialect(client);
      // AgentGym's ALFWorld server has no close: instances are reused by the pool until the process ends.
      return { dialect, backend: { create: () => dialect.create(), close: () => {} } };
    },
    createEpisode: (task, game, env) => new AlfWorldEpisode(task, env, game),
  });
}

class AlfWorldEpisode extends RemoteEpisode<AlfWorldState, AlfWorldDialect, AlfWorldOptions> {
  constructor(
    task: EnvTaskV1<AlfWorldState, string>,
    env: RemoteEnvParts<AlfWorldOptions, AlfWorldDialect>,
    private readonly game: number,
  ) {
    super(task, env, { game, taskType: '', observation: '', actions: [], done: true, won: false, score: 0 });
  }

  rules(): string {
    return alfWorldRules(this.options.maxTurns);
  }

  protected resetOn(dialect: AlfWorldDialect, instance: number): AlfWorldState {
    const r = dialect.reset(instance, this.game, this.options.worldType);
    return {
      game: this.game,
      taskType: r.task_type ?? '',
      observation: r.observation,
      actions: visible(r.available_actions),
      done: false,
      won: false,
      score: 0,
    };
  }

  parse(response: string): ParsedAction<string> {
    const block = firstActionBody(response);
    if (!block.ok) return { valid: false, reason: block.reason };
    const command = normalizeCommand(block.body);
    if (command === '') return { valid: false, reason: 'empty command' };
    const match = this.state.actions.find((a) => normalizeCommand(a) === command);
    if (match === undefined)
      return { valid: false, reason: `'${shorten(command)}' is not an admissible command` };
    return { valid: true, action: match, text: match };
  }

  protected stepOn(
    dialect: AlfWorldDialect,
    instance: number,
    action: string,
    state: AlfWorldState,
  ): RemoteStepResult<AlfWorldState> {
    const r = dialect.step(instance, action);
    const won = r.reward >= 1;
    const next: AlfWorldState = {
      ...state,
      observation: r.observation,
      actions: visible(r.available_actions),
      done: won || r.done,
      won,
      score: won ? this.options.winReward : 0,
    };
    return { next, event: `${action}: ${shorten(r.observation, 200)}` };
  }

  protected render(state: AlfWorldState): string {
    return renderAlfWorld(state);
  }

  protected outcome(state: AlfWorldState, truncated: boolean): AttemptOutcome {
    return state.won
      ? ALFWORLD_OUTCOMES.won
      : truncated
        ? ALFWORLD_OUTCOMES.truncated
        : ALFWORLD_OUTCOMES.lost;
  }

  protected observation(s: AlfWorldState): EnvObservationV1 {
    return {
      text: renderAlfWorld(s),
      anchor: `alfworld:${s.game}:${s.observation}`,
      info: { game: s.game, taskType: s.taskType, admissible: [...s.actions], won: s.won },
    };
  }
}

function visible(commands: readonly string[]): string[] {
  return commands.filter((c) => !HIDDEN_COMMANDS.has(normalizeCommand(c)));
}
