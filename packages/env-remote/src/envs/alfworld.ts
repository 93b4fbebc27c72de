/**
 * ALFWorld (TextWorld household tasks from ALFRED) played on an AgentGym `agentenv-alfworld` server.
 * A task seed picks a game index in the split's range; every attempt of a meta-episode resets the same
 * game. The agent answers one admissible command per turn inside `<action>…</action>`; the attempt is
 * won when the server reports the task won.
 */

import {
  type AttemptOutcome,
  type EnvEpisodeV1,
  type EnvObservationV1,
  type EnvStepV1,
  type EnvTaskV1,
  type EnvV1,
  InvalidArgumentError,
  type ParsedAction,
  PROMPT_STYLES,
} from '@mage-rl/core';
import { z } from 'zod';
import { AlfWorldDialect } from '../dialects/alfworld';
import { remoteConnectionShape, taskIndex, taskRange, validateRemoteOptions } from '../options';
import { firstActionBody, normalizeCommand, shorten } from '../text';
import { LazyConnection } from './connection';
import { type RemoteStateBase, remoteGameModel } from './remote-game';
import { jsonOptions, splitRange } from './splits';

export const ALFWORLD_ENV_ID = 'alfworld';

/**
 * Options. The game ranges follow AgentGym's server: its game list is the 2,420 games of its train
 * mapping, then the 200 of its test mapping (from ALFWorld's `valid_train`); it serves no unseen-scene
 * (`valid_unseen`) games, so `outOfDomainTasks` is unset unless a server provides them.
 */
export const alfWorldOptionsSchema = z.strictObject({
  ...remoteConnectionShape,
  maxTurns: z.number().int().min(1).max(200).default(10),
  split: z.enum(['train', 'in-domain', 'out-of-domain']).default('train'),
  trainTasks: taskRange.default([0, 2420]),
  inDomainTasks: taskRange.default([2420, 2620]),
  outOfDomainTasks: taskRange.nullable().default(null),
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
  const options = validateRemoteOptions(ALFWORLD_ENV_ID, alfWorldOptionsSchema, input);
  const range = splitRange(
    ALFWORLD_ENV_ID,
    options,
    'the AgentGym ALFWorld server has no unseen-scene games',
  );
  const connection = new LazyConnection(options, 'the ALFWorld server', (client) => {
    const dialect = new AlfWorldDialect(client);
    // AgentGym's ALFWorld server has no close: instances are reused by the pool until the process ends.
    return { dialect, backend: { create: () => dialect.create(), close: () => {} } };
  });
  return {
    specificationVersion: 'v1',
    id: ALFWORLD_ENV_ID,
    options: jsonOptions(options),
    game: remoteGameModel<AlfWorldState>('ALFWorld'),
    promptStyles: PROMPT_STYLES,
    maxTurns: options.maxTurns,
    needsOpponent: false,
    createEpisode: (task) => new AlfWorldEpisode(task, options, taskIndex(task.seed, range), connection),
    formatAction: (action) => `<action>${action}</action>`,
  };
}

class AlfWorldEpisode implements EnvEpisodeV1<AlfWorldState, string> {
  private current: AlfWorldState;
  private initial = '';
  private turns = 0;
  private instance: number | undefined;
  /** Mid-attempt: the pool must not give the instance away. */
  busy = false;

  constructor(
    readonly task: EnvTaskV1<AlfWorldState, string>,
    private readonly options: AlfWorldOptions,
    private readonly game: number,
    private readonly connection: LazyConnection<AlfWorldDialect>,
  ) {
    this.current = { game, taskType: '', observation: '', actions: [], done: true, won: false, score: 0 };
  }

  get state(): AlfWorldState {
    return this.current;
  }
  get turn(): number {
    return this.turns;
  }
  get done(): boolean {
    return this.current.done;
  }

  rules(): string {
    return alfWorldRules(this.options.maxTurns);
  }
  initialText(): string {
    return this.initial;
  }
  reveal(): undefined {
    return undefined;
  }

  reset(_attempt: number): EnvObservationV1 {
    const { dialect, pool } = this.connection.get();
    this.busy = false;
    this.instance = pool.acquire(this, this.instance);
    const r = dialect.reset(this.instance, this.game, this.options.worldType);
    this.turns = 0;
    this.current = {
      game: this.game,
      taskType: r.task_type ?? '',
      observation: r.observation,
      actions: visible(r.available_actions),
      done: false,
      won: false,
      score: 0,
    };
    this.initial = renderAlfWorld(this.current);
    this.busy = true;
    return this.observe();
  }

  parse(response: string): ParsedAction<string> {
    const block = firstActionBody(response);
    if (!block.ok) return { valid: false, reason: block.reason };
    const command = normalizeCommand(block.body);
    if (command === '') return { valid: false, reason: 'empty command' };
    const match = this.current.actions.find((a) => normalizeCommand(a) === command);
    if (match === undefined)
      return { valid: false, reason: `'${shorten(command)}' is not an admissible command` };
    return { valid: true, action: match, text: match };
  }

  step(action: ParsedAction<string>): EnvStepV1 {
    if (this.current.done) {
      throw new InvalidArgumentError('ALFWorld: step() after the attempt ended; call reset() first.');
    }
    this.turns++;
    if (!action.valid) return this.finish(0, false, `invalid: ${action.reason}`, this.current);
    const { dialect, pool } = this.connection.get();
    if (!pool.holds(this, this.instance) || this.instance === undefined) {
      throw new InvalidArgumentError('ALFWorld: step() before reset().');
    }
    const r = dialect.step(this.instance, action.action);
    const won = r.reward >= 1;
    const next: AlfWorldState = {
      ...this.current,
      observation: r.observation,
      actions: visible(r.available_actions),
      done: won || r.done,
      won,
      score: won ? this.options.winReward : 0,
    };
    return this.finish(next.score, true, `${action.action}: ${shorten(r.observation, 200)}`, next);
  }

  private finish(reward: number, valid: boolean, event: string, next: AlfWorldState): EnvStepV1 {
    const truncated = !next.done && this.turns >= this.options.maxTurns;
    this.current = truncated ? { ...next, done: true } : next;
    const observation = this.observe();
    if (!this.current.done) return { observation, reward, valid, event, done: false };
    this.busy = false;
    const outcome = this.current.won
      ? ALFWORLD_OUTCOMES.won
      : truncated
        ? ALFWORLD_OUTCOMES.truncated
        : ALFWORLD_OUTCOMES.lost;
    return { observation, reward, valid, event, done: true, outcome };
  }

  private observe(): EnvObservationV1 {
    const s = this.current;
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
