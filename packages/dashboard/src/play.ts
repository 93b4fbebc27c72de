/**
 * The play page's sessions: a person plays a game model (`EnvDefinitionV1.opponents.match`) against an
 * opponent over several attempts of the same task (same deal, same opponent, same seat), as an agent plays
 * a meta-episode. Moves are checked against the legal actions; the opponent answers at once.
 */

import { randomUUID } from 'node:crypto';
import {
  CHANCE_PLAYER,
  createRng,
  type EnvDefinitionV1,
  type GameModelV1,
  type OpponentV1,
  type Rng,
} from '@mage-rl/core';
import { checkOpponentCost } from '@mage-rl/core/http';

/** A game the play page offers. */
export interface PlayGameInfo {
  readonly id: string;
  readonly name: string;
  readonly opponents: readonly string[];
}

/** A session as the page sees it. */
export interface PlayView {
  readonly session: string;
  readonly game: string;
  readonly opponent: string;
  /** The person's seat in the game model (0 moves first). */
  readonly seat: number;
  readonly attempt: number;
  readonly attempts: number;
  /** The state as the person may see it (hidden cards of the opponent removed until the end). */
  readonly state: unknown;
  readonly legal: readonly string[];
  readonly status: 'your-move' | 'attempt-over' | 'finished';
  /** Moves of the current attempt: who played what. */
  readonly moves: readonly { readonly by: 'you' | 'opponent' | 'chance'; readonly action: string }[];
  /** Finished attempts: the person's return and the outcome. */
  readonly results: readonly {
    readonly attempt: number;
    readonly return: number;
    readonly outcome: 'win' | 'loss' | 'draw';
  }[];
}

/** A request the game cannot take; `status` is the HTTP answer (400, or 409 for a move on a stale position). */
export class PlayError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 409 = 400,
  ) {
    super(message);
  }
}

interface Session {
  readonly id: string;
  readonly def: EnvDefinitionV1;
  readonly model: GameModelV1<unknown, unknown>;
  readonly root: unknown;
  readonly opponent: OpponentV1<unknown, unknown>;
  readonly opponentId: string;
  readonly seat: number;
  readonly attempts: number;
  readonly seed: number;
  attempt: number;
  rng: Rng;
  state: unknown;
  moves: { by: 'you' | 'opponent' | 'chance'; action: string }[];
  results: { attempt: number; return: number; outcome: 'win' | 'loss' | 'draw' }[];
  touched: number;
}

/** Sessions kept at most; the least recently used is dropped beyond it. */
const MAX_SESSIONS = 64;

export class PlayHost {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly defs: readonly EnvDefinitionV1[]) {}

  games(): PlayGameInfo[] {
    return this.defs.flatMap((d) =>
      d.opponents?.match ? [{ id: d.id, name: d.labels?.name ?? d.id, opponents: d.opponents.ids }] : [],
    );
  }

  start(request: {
    game: string;
    opponent: string;
    seat?: number;
    attempts?: number;
    seed?: number;
  }): PlayView {
    const def = this.defs.find((d) => d.id === request.game);
    const match = def?.opponents?.match;
    if (!def || !match || !def.opponents) {
      throw new PlayError(
        `Unknown game '${request.game}'; choose one of ${this.games()
          .map((g) => g.id)
          .join(', ')}.`,
      );
    }
    try {
      checkOpponentCost(request.opponent);
    } catch (error) {
      throw new PlayError(error instanceof Error ? error.message : String(error));
    }
    if (!def.opponents.has(request.opponent)) {
      throw new PlayError(
        `Unknown opponent '${request.opponent}' for ${def.id}; choose one of ${def.opponents.ids.join(', ')}.`,
      );
    }
    const seat = request.seat ?? 0;
    const attempts = request.attempts ?? 3;
    if (seat !== 0 && seat !== 1) throw new PlayError('seat must be 0 (first to move) or 1.');
    if (!Number.isInteger(attempts) || attempts < 1 || attempts > 10)
      throw new PlayError('attempts must be an integer in 1..10.');
    const seed = Number.isInteger(request.seed) ? (request.seed as number) : Math.floor(Math.random() * 1e9);
    const id = `p${randomUUID()}`;
    const session: Session = {
      id,
      def,
      model: match.model as GameModelV1<unknown, unknown>,
      root: match.root,
      opponent: def.opponents.create(request.opponent) as OpponentV1<unknown, unknown>,
      opponentId: request.opponent,
      seat,
      attempts,
      seed,
      attempt: 0,
      rng: createRng(seed),
      state: match.root,
      moves: [],
      results: [],
      touched: Date.now(),
    };
    this.sessions.set(id, session);
    this.prune();
    this.beginAttempt(session);
    return this.view(session);
  }

  move(id: string, action: string): PlayView {
    const s = this.session(id);
    if (this.statusOf(s) !== 'your-move')
      throw new PlayError('It is not your move; start the next attempt or a new game.');
    const chosen = s.model.legalActions(s.state).find((a) => s.model.actionKey(a) === action);
    if (chosen === undefined) {
      throw new PlayError(`'${action}' is not a legal move here; legal: ${this.legalKeys(s).join(', ')}.`);
    }
    s.state = s.model.apply(s.state, chosen);
    s.moves.push({ by: 'you', action });
    this.advance(s);
    return this.view(s);
  }

  next(id: string): PlayView {
    const s = this.session(id);
    if (this.statusOf(s) !== 'attempt-over') throw new PlayError('The attempt is not over yet.');
    s.attempt++;
    this.beginAttempt(s);
    return this.view(s);
  }

  get(id: string): PlayView {
    return this.view(this.session(id));
  }

  private session(id: string): Session {
    const s = this.sessions.get(id);
    if (!s)
      throw new PlayError(
        `No game '${id}' (finished long ago, or the dashboard restarted); start a new one.`,
      );
    s.touched = Date.now();
    return s;
  }

  private prune(): void {
    while (this.sessions.size > MAX_SESSIONS) {
      const oldest = [...this.sessions.values()].reduce((a, b) => (a.touched <= b.touched ? a : b));
      this.sessions.delete(oldest.id);
    }
  }

  /** Every attempt replays the same chance outcomes (the same task), like a meta-episode's attempts. */
  private beginAttempt(s: Session): void {
    s.rng = createRng(s.seed);
    s.state = s.root;
    s.moves = [];
    this.advance(s);
  }

  /** Plays chance and the opponent until the person is to move or the game ends. */
  private advance(s: Session): void {
    const { model } = s;
    for (let guard = 0; guard < 1000 && !model.isTerminal(s.state); guard++) {
      const player = model.currentPlayer(s.state);
      if (player === s.seat) return;
      if (player === CHANCE_PLAYER) {
        const outcomes = model.chanceOutcomes?.(s.state) ?? [];
        let r = s.rng.next();
        let pick = outcomes[outcomes.length - 1];
        for (const o of outcomes) {
          r -= o.probability;
          if (r < 0) {
            pick = o;
            break;
          }
        }
        if (!pick) throw new PlayError('The game has a chance node without outcomes.');
        s.state = model.apply(s.state, pick.action);
        s.moves.push({ by: 'chance', action: 'deal' });
        continue;
      }
      const observed = model.observe ? model.observe(s.state, player) : s.state;
      const action = s.opponent.act(observed, { rng: s.rng.split(`opponent-${s.moves.length}`), player });
      s.state = model.apply(s.state, action);
      s.moves.push({ by: 'opponent', action: model.actionKey(action) });
    }
    if (model.isTerminal(s.state) && s.results.length === s.attempt) {
      const ret = model.returns(s.state)[s.seat] ?? 0;
      s.results.push({
        attempt: s.attempt,
        return: ret,
        outcome: ret > 0 ? 'win' : ret < 0 ? 'loss' : 'draw',
      });
    }
  }

  private legalKeys(s: Session): string[] {
    return s.model.legalActions(s.state).map((a) => s.model.actionKey(a));
  }

  private statusOf(s: Session): PlayView['status'] {
    if (!s.model.isTerminal(s.state)) return 'your-move';
    return s.attempt + 1 < s.attempts ? 'attempt-over' : 'finished';
  }

  private view(s: Session): PlayView {
    const status = this.statusOf(s);
    const over = status !== 'your-move';
    return {
      session: s.id,
      game: s.def.id,
      opponent: s.opponentId,
      seat: s.seat,
      attempt: s.attempt,
      attempts: s.attempts,
      state: over || !s.model.observe ? s.state : s.model.observe(s.state, s.seat),
      legal: over ? [] : this.legalKeys(s),
      status,
      moves: s.moves,
      results: s.results,
    };
  }
}
