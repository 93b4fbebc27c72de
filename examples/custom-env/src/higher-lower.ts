/**
 * Higher-Lower: the task seed hides a number in 1..N; each turn the agent guesses and hears `higher`,
 * `lower` or `correct`. Every attempt of a meta-episode hides the same number, so an agent that remembers
 * what it learned in earlier attempts can answer at once — a small meta-learning task.
 *
 * This file is a complete `EnvV1`: a game model (single player) and a text face.
 */

import {
  type AttemptOutcome,
  ConfigError,
  type EnvEpisodeV1,
  type EnvObservationV1,
  type EnvStepV1,
  type EnvTaskV1,
  type EnvV1,
  type GameModelV1,
  type ParsedAction,
  TERMINAL_PLAYER,
} from '@mage-rl/core';

export interface HigherLowerState {
  readonly secret: number;
  /** What the agent knows: the secret is in [low, high]. */
  readonly low: number;
  readonly high: number;
  readonly solved: boolean;
}

export interface HigherLowerOptions {
  /** Largest possible number (default 16). */
  readonly max?: number;
  /** Guesses per attempt (default 5). */
  readonly maxTurns?: number;
}

export function higherLowerGame(max: number): GameModelV1<HigherLowerState, number> {
  return {
    specificationVersion: 'v1',
    numPlayers: 1,
    currentPlayer: (s) => (s.solved ? TERMINAL_PLAYER : 0),
    legalActions: (s) => (s.solved ? [] : Array.from({ length: max }, (_, i) => i + 1)),
    apply: (s, guess) => {
      if (guess === s.secret) return { ...s, solved: true };
      return guess < s.secret
        ? { ...s, low: Math.max(s.low, guess + 1) }
        : { ...s, high: Math.min(s.high, guess - 1) };
    },
    isTerminal: (s) => s.solved,
    returns: (s) => [s.solved ? 1 : 0],
    actionKey: (a) => String(a),
    stateKey: (s) => `${s.secret}:${s.low}-${s.high}:${s.solved ? 1 : 0}`,
  };
}

const ACTION = /<action>\s*(\d{1,4})\s*<\/action>/i;

export function createHigherLower(options: HigherLowerOptions = {}): EnvV1<HigherLowerState, number> {
  const max = options.max ?? 16;
  const maxTurns = options.maxTurns ?? 5;
  if (!Number.isInteger(max) || max < 2 || max > 1000) {
    throw new ConfigError(`higher-lower: max must be an integer in [2, 1000], got ${max}.`, { path: 'max' });
  }
  if (!Number.isInteger(maxTurns) || maxTurns < 1 || maxTurns > 50) {
    throw new ConfigError(`higher-lower: maxTurns must be an integer in [1, 50], got ${maxTurns}.`, {
      path: 'maxTurns',
    });
  }
  const game = higherLowerGame(max);
  return {
    specificationVersion: 'v1',
    id: 'higher-lower',
    options: { max, maxTurns },
    game,
    promptStyles: ['verbose', 'compact'],
    maxTurns,
    needsOpponent: false,
    createEpisode: (task) => new HigherLowerEpisode(task, game, max, maxTurns),
    formatAction: (guess) => `<action>${guess}</action>`,
  };
}

class HigherLowerEpisode implements EnvEpisodeV1<HigherLowerState, number> {
  private readonly initial: HigherLowerState;
  private current: HigherLowerState;
  private turns = 0;

  constructor(
    readonly task: EnvTaskV1<HigherLowerState, number>,
    private readonly game: GameModelV1<HigherLowerState, number>,
    private readonly max: number,
    private readonly maxTurns: number,
  ) {
    // All randomness comes from the task's stream: the same seed hides the same number.
    const secret = 1 + task.rng.split('secret').int(max);
    this.initial = { secret, low: 1, high: max, solved: false };
    this.current = this.initial;
  }

  get state(): HigherLowerState {
    return this.current;
  }
  get turn(): number {
    return this.turns;
  }
  get done(): boolean {
    return this.current.solved || this.turns >= this.maxTurns;
  }

  rules(): string {
    return this.task.style === 'compact'
      ? `guess 1 to ${this.max}. answer <action>N</action>`
      : `I am thinking of a whole number from 1 to ${this.max}. Guess it: after each guess I say higher, lower or correct. You have ${this.maxTurns} guesses. Answer with <action>N</action>.`;
  }

  initialText(): string {
    return this.render(this.initial);
  }

  reset(): EnvObservationV1 {
    this.current = this.initial;
    this.turns = 0;
    return this.observe();
  }

  /**
   * Reads only the text: a number outside 1..max is not an action of this game. A guess the hints already
   * ruled out still parses: it is legal, merely wasted (refusing an action for the current state would be
   * `step`'s, a rule violation rather than a format error).
   */
  parse(response: string): ParsedAction<number> {
    const m = ACTION.exec(response.slice(0, 10_000));
    if (!m) return { valid: false, reason: 'no <action>N</action> found' };
    const guess = Number(m[1]);
    if (guess < 1 || guess > this.max) return { valid: false, reason: `${guess} is not in 1..${this.max}` };
    return { valid: true, action: guess, text: String(guess) };
  }

  step(action: ParsedAction<number>): EnvStepV1 {
    this.turns++;
    if (!action.valid) return this.result(0, false, 'invalid');
    const guess = action.action;
    this.current = this.game.apply(this.current, guess);
    const hint = this.current.solved ? 'correct' : guess < this.current.secret ? 'higher' : 'lower';
    return this.result(this.current.solved ? 10 : 0, true, `guess ${guess} ${hint}`);
  }

  reveal(): string | undefined {
    return undefined;
  }

  private render(s: HigherLowerState): string {
    return this.task.style === 'compact'
      ? `range ${s.low} ${s.high}`
      : `The number is between ${s.low} and ${s.high}.`;
  }

  private observe(): EnvObservationV1 {
    const s = this.current;
    return {
      text: this.render(s),
      anchor: `higher-lower:${s.low}-${s.high}`,
      info: { low: s.low, high: s.high },
    };
  }

  private result(reward: number, valid: boolean, event: string): EnvStepV1 {
    const observation = this.observe();
    if (!this.done) return { observation, reward, valid, event, done: false };
    const outcome: AttemptOutcome = this.current.solved
      ? { success: true, draw: false, truncated: false, label: 'win' }
      : { success: false, draw: false, truncated: true, label: 'truncated' };
    return { observation, reward, valid, event, done: true, outcome };
  }
}
