/**
 * `createTreasure(options)`: the single-player Treasure `EnvV1`, a hidden-target search. The task's rng
 * stream `target` hides one cell; every attempt of the meta-episode hides the same cell and starts from the
 * same empty grid, so only the agent's notes carry what earlier probes told it (see architecture/envs.md).
 */

import type { AttemptOutcome, EnvStepV1, EnvTaskV1, EnvV1, JsonObject, ParsedAction } from '@mage-rl/spec';
import { z } from 'zod';
import { OUTCOME_LOSS, OUTCOME_WIN } from '../episode/outcomes';
import { SingleAgentEpisode } from '../episode/single-agent-episode';
import { textEnv } from '../episode/text-env';
import { maxTurnsOption } from '../options/turn-options';
import {
  applyTreasure,
  initialTreasureState,
  TREASURE_MAX_SIZE,
  TREASURE_MIN_SIZE,
  type TreasureAction,
  type TreasureState,
  treasureGame,
  treasureHint,
  treasureKey,
} from './game';
import {
  formatTreasureAction,
  parseTreasureAction,
  renderTreasure,
  treasureEvent,
  treasureHintText,
  treasureRules,
} from './text';

export const TREASURE_ENV_ID = 'treasure';

/** Step reward of the probe that finds the treasure; every other probe scores 0. */
export const TREASURE_FOUND_REWARD = 10;

export const treasureOptionsSchema = z.strictObject({
  /** Grid columns. */
  width: z.number().int().min(TREASURE_MIN_SIZE).max(TREASURE_MAX_SIZE).default(3),
  /** Grid rows. */
  height: z.number().int().min(TREASURE_MIN_SIZE).max(TREASURE_MAX_SIZE).default(3),
  /** Probes per attempt. */
  maxTurns: maxTurnsOption(1, 1),
});

export type TreasureOptions = z.input<typeof treasureOptionsSchema>;
export type TreasureResolvedOptions = z.output<typeof treasureOptionsSchema>;
export type TreasureEnv = EnvV1<TreasureState, TreasureAction>;

/** The Treasure env. Throws a `ConfigError` naming the bad option. */
export function createTreasure(options: TreasureOptions = {}): TreasureEnv {
  return textEnv(TREASURE_ENV_ID, treasureOptionsSchema, options, (resolved) => ({
    game: treasureGame(resolved.width, resolved.height),
    needsOpponent: false,
    createEpisode: (task) => new TreasureEpisode(task, resolved),
    formatAction: (cell, style) => formatTreasureAction(cell, resolved.width, style),
  }));
}

class TreasureEpisode extends SingleAgentEpisode<TreasureState, TreasureAction, TreasureResolvedOptions> {
  protected readonly label = 'Treasure';

  constructor(task: EnvTaskV1<TreasureState, TreasureAction>, options: TreasureResolvedOptions) {
    const { width, height } = options;
    // The same task seed hides the same cell in every attempt.
    const target = task.rng.split('target').int(width * height);
    super(task, options, initialTreasureState(width, height, target));
  }

  protected ended(): boolean {
    return this.current.found;
  }

  rules(): string {
    const { width, height, maxTurns } = this.options;
    return treasureRules(width, height, maxTurns, this.task.style);
  }

  parse(response: string): ParsedAction<TreasureAction> {
    return parseTreasureAction(response, this.options.width, this.options.height);
  }

  protected play(cell: TreasureAction): EnvStepV1 {
    this.current = applyTreasure(this.current, cell);
    const hint = treasureHint(this.options.width, this.current.target, cell);
    const event = treasureEvent(cell, this.options.width, hint, this.task.style);
    return this.result(hint.found ? TREASURE_FOUND_REWARD : 0, true, event);
  }

  protected render(s: TreasureState): string {
    return renderTreasure(s, this.task.style);
  }

  /** Only what the agent sees: never the hidden cell. */
  protected anchor(s: TreasureState): string {
    return `treasure:${treasureKey(s)}`;
  }

  protected info(s: TreasureState): JsonObject {
    const { width } = s;
    const hints = s.probes.map((p) => treasureHint(width, s.target, p));
    const last = hints[hints.length - 1];
    return {
      width,
      height: s.height,
      // This attempt's probes as compact event lines (`probe 2 3 south west`).
      probes: s.probes.map((p, i) => treasureEvent(p, width, hints[i]!, 'compact')),
      hint: last ? treasureHintText(last) : '',
    };
  }

  protected outcome(): AttemptOutcome {
    return this.current.found ? OUTCOME_WIN : OUTCOME_LOSS;
  }
}
