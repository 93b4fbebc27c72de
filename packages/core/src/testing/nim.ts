/**
 * A tiny two-player reference environment (Nim: take 1 or 2 stones; whoever takes the last stone wins).
 * It exists for tests of the runner and the conformance suite, and as a worked example of `EnvV1`.
 */

import type {
  AttemptOutcome,
  EnvEpisodeV1,
  EnvObservationV1,
  EnvStepV1,
  EnvTaskV1,
  EnvV1,
  GameModelV1,
  JsonObject,
  ParsedAction,
  PromptStyle,
} from '@mage-rl/spec';
import { InvalidArgumentError, TERMINAL_PLAYER } from '@mage-rl/spec';

export interface NimState {
  readonly stones: number;
  /** Player to move (0 or 1). */
  readonly toMove: number;
  /** Player who took the last stone, once the game is over. */
  readonly winner: number | null;
}

export type NimAction = 1 | 2;

export interface NimOptions {
  /** Smallest and largest starting pile; the task seed picks one. Default 5..9. */
  readonly minStones?: number;
  readonly maxStones?: number;
  /** Agent turns per attempt. Default 6. */
  readonly maxTurns?: number;
}

/** The return of `player` (0 or 1): +1 for the winner, −1 for the loser, 0 before the end. */
function nimReturn(s: NimState, player: number): number {
  return s.winner === null ? 0 : s.winner === player ? 1 : -1;
}

export const nimGame: GameModelV1<NimState, NimAction> = {
  specificationVersion: 'v1',
  numPlayers: 2,
  currentPlayer: (s) => (s.winner === null ? s.toMove : TERMINAL_PLAYER),
  legalActions: (s) => (s.winner !== null ? [] : s.stones >= 2 ? [1, 2] : [1]),
  apply: (s, a) => {
    const stones = s.stones - a;
    return { stones, toMove: 1 - s.toMove, winner: stones === 0 ? s.toMove : null };
  },
  isTerminal: (s) => s.winner !== null,
  returns: (s) => [nimReturn(s, 0), nimReturn(s, 1)],
  actionKey: (a) => String(a),
  stateKey: (s) => `${s.stones}:${s.toMove}:${s.winner ?? '-'}`,
};

const ACTION_RE = /<action>\s*([12])\s*<\/action>/;

/**
 * Parse `<action>1</action>` or `<action>2</action>`. Never throws. Reads only the text: taking more stones
 * than are left parses, and the episode refuses it when the turn is played (a rule violation, not a format
 * error).
 */
export function parseNimAction(text: string): ParsedAction<NimAction> {
  const m = ACTION_RE.exec(text.slice(0, 10_000));
  if (!m) return { valid: false, reason: 'no <action>1</action> or <action>2</action> found' };
  const action = Number(m[1]) as NimAction;
  return { valid: true, action, text: String(action) };
}

export function createNimEnv(options: NimOptions = {}): EnvV1<NimState, NimAction> {
  const minStones = options.minStones ?? 5;
  const maxStones = options.maxStones ?? 9;
  const maxTurns = options.maxTurns ?? 6;
  if (
    !(Number.isInteger(minStones) && Number.isInteger(maxStones) && minStones >= 1 && maxStones >= minStones)
  ) {
    throw new InvalidArgumentError(`Nim needs 1 <= minStones <= maxStones, got ${minStones}..${maxStones}.`);
  }
  const resolved: JsonObject = { minStones, maxStones, maxTurns };
  return {
    specificationVersion: 'v1',
    id: 'nim',
    options: resolved,
    game: nimGame,
    promptStyles: ['verbose', 'compact'],
    maxTurns,
    needsOpponent: true,
    createEpisode: (task) => new NimEpisode(task, minStones, maxStones, maxTurns),
    formatAction: (a) => `<action>${a}</action>`,
  };
}

function render(state: NimState, style: PromptStyle): string {
  return style === 'compact' ? `pile ${state.stones}` : `There are ${state.stones} stones left.`;
}

class NimEpisode implements EnvEpisodeV1<NimState, NimAction> {
  readonly task: EnvTaskV1<NimState, NimAction>;
  private readonly initial: NimState;
  private readonly agent: number;
  private current: NimState;
  private attempt = 0;
  private turns = 0;

  constructor(
    task: EnvTaskV1<NimState, NimAction>,
    minStones: number,
    maxStones: number,
    private readonly maxTurns: number,
  ) {
    this.task = task;
    this.agent = task.seat === 'first' ? 0 : 1;
    const stones = minStones + task.rng.split('pile').int(maxStones - minStones + 1);
    let start: NimState = { stones, toMove: 0, winner: null };
    if (this.agent === 1) start = nimGame.apply(start, this.opponentMove(start, 'reset'));
    this.initial = start;
    this.current = start;
  }

  get state(): NimState {
    return this.current;
  }
  get turn(): number {
    return this.turns;
  }
  get done(): boolean {
    return nimGame.isTerminal(this.current) || this.turns >= this.maxTurns;
  }

  rules(): string {
    return this.task.style === 'compact'
      ? 'nim: take 1 or 2; last stone wins. answer <action>N</action>'
      : 'Nim. Players alternately take 1 or 2 stones. Whoever takes the last stone wins. Answer with <action>1</action> or <action>2</action>.';
  }

  initialText(): string {
    return render(this.initial, this.task.style);
  }

  reset(attempt: number): EnvObservationV1 {
    this.attempt = attempt;
    this.current = this.initial;
    this.turns = 0;
    return this.observe();
  }

  parse(response: string): ParsedAction<NimAction> {
    return parseNimAction(response);
  }

  step(action: ParsedAction<NimAction>): EnvStepV1 {
    if (this.done) throw new InvalidArgumentError('Nim: step() after the attempt ended; call reset() first.');
    this.turns++;
    if (!action.valid) {
      return this.result(0, false, `invalid: ${action.reason}`);
    }
    if (action.action > this.current.stones) {
      return this.result(0, false, `invalid: cannot take ${action.action} from ${this.current.stones}`);
    }
    let state = nimGame.apply(this.current, action.action);
    let event = `you took ${action.action}`;
    if (!nimGame.isTerminal(state)) {
      const reply = this.opponentMove(state, `attempt-${this.attempt}/turn-${this.turns}`);
      state = nimGame.apply(state, reply);
      event += `, opponent took ${reply}`;
    }
    this.current = state;
    const reward = nimReturn(state, this.agent);
    return this.result(reward, true, event);
  }

  reveal(): string | undefined {
    return undefined;
  }

  private opponentMove(state: NimState, stream: string): NimAction {
    const opponent = this.task.opponent;
    const legal = nimGame.legalActions(state);
    if (!opponent) return legal[0] as NimAction;
    return opponent.act(state, { rng: this.task.rng.split('opponent').split(stream), player: state.toMove });
  }

  private observe(): EnvObservationV1 {
    return {
      text: render(this.current, this.task.style),
      anchor: `nim:${this.current.stones}`,
      info: { stones: this.current.stones },
    };
  }

  private result(reward: number, valid: boolean, event: string): EnvStepV1 {
    const done = this.done;
    return {
      observation: this.observe(),
      reward,
      valid,
      event,
      done,
      ...(done ? { outcome: this.outcome() } : {}),
    };
  }

  private outcome(): AttemptOutcome {
    const w = this.current.winner;
    if (w === null) return { success: false, draw: false, truncated: true, label: 'truncated' };
    return w === this.agent
      ? { success: true, draw: false, truncated: false, label: 'win' }
      : { success: false, draw: false, truncated: false, label: 'loss' };
  }
}
