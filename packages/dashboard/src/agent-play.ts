/**
 * Playing against a trained policy: the agent plays a meta-episode (its attempts, its reflections between
 * them) with the person as its opponent. The runner asks opponents for moves synchronously, so a session
 * replays the meta-episode from the start with the person's moves so far: the person's opponent answers
 * from that list and, when it runs out, stops the rollout with `AwaitingPerson` carrying the position.
 * Policy sampling is seeded per request, so every replay repeats the agent's earlier outputs exactly.
 */

import { randomUUID } from 'node:crypto';
import type {
  GameModelV1,
  MetaEpisodeBatchRecord,
  OpponentV1,
  PlayAgentV1,
  RolloutFailureError,
  UnsteppedTurn,
} from '@mage-rl/core';
import { PlayError, type PlayView } from './play';

/** Thrown by the person's opponent when the rollout needs a move the person has not made yet. */
class AwaitingPerson extends Error {
  constructor(
    readonly state: unknown,
    readonly player: number,
  ) {
    super('waiting for the person to move');
  }
}

function awaiting(error: unknown): AwaitingPerson | null {
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 10; depth++) {
    if (e instanceof AwaitingPerson) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

/** The legal action of `state` whose key is `key`, if there is one. */
function actionOf(model: GameModelV1<unknown, unknown>, state: unknown, key: string): unknown {
  return model.legalActions(state).find((a) => model.actionKey(a) === key);
}

export interface AgentTurnView {
  readonly attempt: number;
  readonly kind: 'move' | 'reflection';
  readonly text: string;
  readonly valid: boolean;
  readonly reward: number;
}

/** A session with an agent as the page sees it: a play session that ends only when every attempt has. */
export interface AgentPlayView extends Omit<PlayView, 'status' | 'state'> {
  readonly status: 'your-move' | 'finished';
  /**
   * The position the person is to move in, as the person sees it. Once finished: the position the
   * person's last move left, when that move was in the last attempt; null when the agent played the last
   * attempt without the person. The agent's hidden cards stay hidden even then: the person's side never
   * sees them.
   */
  readonly state: unknown;
  /** What the agent wrote: its moves and the reflections between attempts. */
  readonly agent: readonly AgentTurnView[];
}

interface AgentSession {
  readonly id: string;
  readonly agent: PlayAgentV1;
  readonly seed: number;
  readonly attempts: number;
  readonly moves: string[];
  view: AgentPlayView | null;
}

export class AgentSessions {
  private readonly sessions = new Map<string, AgentSession>();
  /** One replay at a time: a policy is not shared between concurrent rollouts. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly agents: readonly PlayAgentV1[]) {}

  async start(agentId: string, attempts: number, seed: number): Promise<AgentPlayView> {
    const agent = this.agents.find((a) => a.id === agentId);
    if (!agent) throw new PlayError(`No trained policy '${agentId}' in this dashboard.`);
    const session: AgentSession = {
      id: `a${randomUUID()}`,
      agent,
      seed,
      attempts,
      moves: [],
      view: null,
    };
    this.sessions.set(session.id, session);
    while (this.sessions.size > 16) this.sessions.delete(this.sessions.keys().next().value as string);
    return this.replay(session);
  }

  has(id: string): boolean {
    return this.sessions.has(id);
  }

  /**
   * Plays the person's `action`. `after`, when given, is the number of the person's moves the client's
   * view shows: a move made on an older view (a second click while the agent was still answering the
   * first) is refused with 409 rather than played on a position the person has not seen. The move is
   * checked in the replay queue, against the position the replays before it left, and dropped again when
   * its replay fails, so the session stays playable.
   */
  move(id: string, action: string, after?: number): Promise<AgentPlayView> {
    const s = this.sessions.get(id);
    if (!s?.view) return Promise.reject(new PlayError(`No game '${id}'; start a new one.`));
    return this.queued(async () => {
      const view = s.view;
      if (!view) throw new PlayError(`No game '${id}'; start a new one.`);
      if (after !== undefined && after !== s.moves.length) {
        throw new PlayError(
          `This move was made on an earlier position (the game has ${s.moves.length} of your moves, the move's view had ${after}); GET /api/play/${id} shows the current one.`,
          409,
        );
      }
      if (view.status !== 'your-move') throw new PlayError('The game is over; start a new one.');
      if (!view.legal.includes(action)) {
        throw new PlayError(`'${action}' is not a legal move here; legal: ${view.legal.join(', ')}.`);
      }
      s.moves.push(action);
      try {
        return await this.replayNow(s);
      } catch (error) {
        s.moves.pop();
        throw error;
      }
    });
  }

  get(id: string): AgentPlayView {
    const view = this.sessions.get(id)?.view;
    if (!view) throw new PlayError(`No game '${id}'; start a new one.`);
    return view;
  }

  private replay(s: AgentSession): Promise<AgentPlayView> {
    return this.queued(() => this.replayNow(s));
  }

  /** Runs `work` after every replay queued before it. */
  private queued<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async replayNow(s: AgentSession): Promise<AgentPlayView> {
    const { model } = s.agent;
    let used = 0;
    const person: OpponentV1<unknown, unknown> = {
      specificationVersion: 'v1',
      id: 'you',
      act(state, context) {
        const key = s.moves[used];
        if (key === undefined) throw new AwaitingPerson(state, context.player);
        used++;
        const action = actionOf(model, state, key);
        if (action === undefined) throw new PlayError(`'${key}' is no longer legal.`);
        return action;
      },
    };
    let batch: MetaEpisodeBatchRecord | null;
    let waiting: AwaitingPerson | null = null;
    let answering: UnsteppedTurn | null = null;
    try {
      batch = await s.agent.play(person, s.seed, s.attempts);
    } catch (error) {
      waiting = awaiting(error);
      if (!waiting) throw error;
      // A rollout stopped mid-play carries the record so far. When the person moves first, the env asks
      // for the opening move while the runner is still creating the slot: that failure carries no record,
      // and none exists yet. Only a replay that has used none of the person's moves can stop there.
      const failure = error as Partial<Pick<RolloutFailureError, 'partial' | 'unsteppedTurn'>>;
      if (!failure.partial && used > 0) throw error;
      batch = failure.partial ?? null;
      // The env asks for the person's reply inside the step of the agent's move, so that move has no row
      // yet: the failure carries it apart from the record (none when the person opens an attempt).
      answering = failure.unsteppedTurn ?? null;
    }
    // viewOf reads the view this replay replaces (the position of the person's last move).
    s.view = this.viewOf(s, batch, waiting, answering);
    return s.view;
  }

  /**
   * The page's view of a replay: `batch` is what the agent played (null when the rollout stopped before
   * its first turn), `waiting` the person's position when it stopped there and `answering` the agent's
   * move that position answers, when the person is not opening an attempt.
   */
  private viewOf(
    s: AgentSession,
    batch: MetaEpisodeBatchRecord | null,
    waiting: AwaitingPerson | null,
    answering: UnsteppedTurn | null,
  ): AgentPlayView {
    const { model } = s.agent;
    const agent: AgentTurnView[] = (batch?.rows ?? []).map((r) => ({
      attempt: r.attempt,
      kind: r.phase === 'reflect' ? 'reflection' : 'move',
      text: r.responseText,
      valid: r.valid,
      reward: r.reward,
    }));
    // The move on the board the person is to answer. The env asked for the reply, so it accepted the
    // move (an invalid one changes nothing and asks no one); its reward waits for the reply: 0 so far.
    // The next replay records it as a row with the same text.
    if (answering) {
      agent.push({
        attempt: answering.attempt,
        kind: 'move',
        text: answering.responseText,
        valid: true,
        reward: 0,
      });
    }
    // The attempts the meta-episode has finished, from its records rather than its rows: the person to
    // move is in the attempt after them even when the agent has not moved there yet (the person opens
    // it, or a memory without reflections writes nothing between attempts).
    const finished = batch?.slots[0]?.attempts ?? [];
    const attempt = waiting ? finished.length : Math.max(0, finished.length - 1);
    const results = finished.map((a) => {
      // The record holds the agent's return; the person's is its opposite (the games are zero-sum).
      const ret = -a.return;
      return {
        attempt: a.attempt,
        return: ret,
        outcome: ret > 0 ? ('win' as const) : ret < 0 ? ('loss' as const) : ('draw' as const),
      };
    });
    const seat = waiting?.player ?? s.view?.seat ?? 1;
    return {
      session: s.id,
      game: s.agent.game,
      opponent: s.agent.name,
      seat,
      attempt,
      attempts: s.attempts,
      state: waiting ? waiting.state : this.finalPosition(s, finished.length - 1),
      legal: waiting ? model.legalActions(waiting.state).map((a) => model.actionKey(a)) : [],
      status: waiting ? 'your-move' : 'finished',
      moves: s.moves.map((action) => ({ by: 'you' as const, action })),
      results,
      agent,
    };
  }

  /**
   * The position a finished meta-episode ends on, as far as the person's side sees it: the one the
   * person's last move left, when that move was in the last attempt (`s.view`, still the view of the
   * replay before, is the position it was made from); null when the agent played the last attempt
   * without the person. The rollout hands the person's opponent only the positions where the person is
   * to move, so a closing move of the agent after the person's last one is not on this board; it is the
   * agent's last move in `agent`.
   */
  private finalPosition(s: AgentSession, lastAttempt: number): unknown {
    const { model } = s.agent;
    const from = s.view;
    const key = s.moves.at(-1);
    if (from?.status !== 'your-move' || from.attempt !== lastAttempt || key === undefined) return null;
    const action = actionOf(model, from.state, key);
    return action === undefined ? null : model.apply(from.state, action);
  }
}
