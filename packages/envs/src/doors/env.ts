/**
 * `createDoors(options)`: the single-player Doors `EnvV1`, a bandit. The task's rng stream `prize` puts the
 * prize behind one door; every attempt of the meta-episode has it behind the same door and starts with all
 * doors closed, so only the agent's notes carry which doors were empty (see architecture/envs.md).
 */

import type { AttemptOutcome, EnvStepV1, EnvTaskV1, EnvV1, JsonObject, ParsedAction } from '@mage-rl/spec';
import { z } from 'zod';
import { OUTCOME_LOSS, OUTCOME_WIN } from '../episode/outcomes';
import { SingleAgentEpisode } from '../episode/single-agent-episode';
import { textEnv } from '../episode/text-env';
import {
  DOORS_MAX,
  DOORS_MIN,
  type DoorsAction,
  type DoorsState,
  doorsGame,
  doorsKey,
  doorsWon,
  initialDoorsState,
} from './game';
import { doorsEvent, doorsRules, formatDoorsAction, parseDoorsAction, renderDoors } from './text';

export const DOORS_ENV_ID = 'doors';

/** Step reward of opening the prize door; an empty door scores 0. */
export const DOORS_PRIZE_REWARD = 10;

export const doorsOptionsSchema = z.strictObject({
  /** Number of doors. */
  doors: z.number().int().min(DOORS_MIN).max(DOORS_MAX).default(3),
  /** One opening per attempt: the only allowed value is 1. */
  maxTurns: z.literal(1).default(1),
});

export type DoorsOptions = z.input<typeof doorsOptionsSchema>;
export type DoorsResolvedOptions = z.output<typeof doorsOptionsSchema>;
export type DoorsEnv = EnvV1<DoorsState, DoorsAction>;

/** The Doors env. Throws a `ConfigError` naming the bad option. */
export function createDoors(options: DoorsOptions = {}): DoorsEnv {
  return textEnv(DOORS_ENV_ID, doorsOptionsSchema, options, (resolved) => ({
    game: doorsGame(resolved.doors),
    needsOpponent: false,
    createEpisode: (task) => new DoorsEpisode(task, resolved),
    formatAction: formatDoorsAction,
  }));
}

class DoorsEpisode extends SingleAgentEpisode<DoorsState, DoorsAction, DoorsResolvedOptions> {
  protected readonly label = 'Doors';

  constructor(task: EnvTaskV1<DoorsState, DoorsAction>, options: DoorsResolvedOptions) {
    // The same task seed puts the prize behind the same door in every attempt.
    const prize = 1 + task.rng.split('prize').int(options.doors);
    super(task, options, initialDoorsState(options.doors, prize));
  }

  protected ended(): boolean {
    return this.current.opened !== null;
  }

  rules(): string {
    return doorsRules(this.options.doors, this.task.style);
  }

  parse(response: string): ParsedAction<DoorsAction> {
    return parseDoorsAction(response, this.options.doors);
  }

  protected play(door: DoorsAction): EnvStepV1 {
    this.current = { ...this.current, opened: door };
    const won = doorsWon(this.current);
    return this.result(won ? DOORS_PRIZE_REWARD : 0, true, doorsEvent(door, won, this.task.style));
  }

  protected render(s: DoorsState): string {
    return renderDoors(s, this.task.style);
  }

  /** Only what the agent sees: never the prize door. */
  protected anchor(s: DoorsState): string {
    return `doors:${doorsKey(s)}`;
  }

  protected info(s: DoorsState): JsonObject {
    return {
      doors: s.doors,
      opened: s.opened ?? 0,
      hint: s.opened === null ? '' : doorsWon(s) ? 'prize' : 'empty',
    };
  }

  protected outcome(): AttemptOutcome {
    return doorsWon(this.current) ? OUTCOME_WIN : OUTCOME_LOSS;
  }
}
