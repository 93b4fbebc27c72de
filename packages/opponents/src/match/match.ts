/**
 * Plays two scripted players against each other on a game model (no text face): the engine behind
 * `mage match`. Chance nodes are sampled; players see `game.observe(state, player)` where defined.
 */

import {
  CHANCE_PLAYER,
  type GameModelV1,
  InvalidArgumentError,
  type OpponentV1,
  type Rng,
  RolloutError,
} from '@mage-rl/spec';

export type MatchSeat = 'first' | 'second' | 'alternate';
export const MATCH_SEATS: readonly MatchSeat[] = ['first', 'second', 'alternate'];

export interface MatchOptions<S, A> {
  readonly game: GameModelV1<S, A>;
  /** Initial state of every game (Kuhn: the chance node before the deal). */
  readonly root: S;
  readonly agent: OpponentV1<S, A>;
  readonly opponent: OpponentV1<S, A>;
  readonly games: number;
  /** The agent's seat: `first` = player 0; `alternate` starts first in game 0. Default `alternate`. */
  readonly seat?: MatchSeat;
  readonly rng: Rng;
  readonly signal?: AbortSignal;
}

export interface MatchResult {
  readonly games: number;
  /** From the agent's point of view: return > 0, = 0, < 0. */
  readonly wins: number;
  readonly draws: number;
  readonly losses: number;
  /** Games the agent played as player 0. */
  readonly agentFirst: number;
  /** Mean return of the agent per game (Kuhn: chips per hand). */
  readonly meanReturn: number;
  /** Mean return of the agent per game by its seat (`NaN` when it never had that seat). */
  readonly meanReturnBySeat: readonly [number, number];
}

/** Plays one game; returns the final state. */
export function playGame<S, A>(
  game: GameModelV1<S, A>,
  root: S,
  players: readonly [OpponentV1<S, A>, OpponentV1<S, A>],
  rng: Rng,
): S {
  let state = root;
  let ply = 0;
  while (!game.isTerminal(state)) {
    const p = game.currentPlayer(state);
    if (p === CHANCE_PLAYER) {
      const outcomes = game.chanceOutcomes?.(state) ?? [];
      const i = rng.split(`chance-${ply}`).weighted(outcomes.map((o) => o.probability));
      state = game.apply(state, outcomes[i]!.action);
    } else {
      const player = players[p]!;
      const seen = game.observe ? game.observe(state, p) : state;
      const action = player.act(seen, { rng: rng.split(`player-${p}`).split(`ply-${ply}`), player: p });
      const key = game.actionKey(action);
      if (!game.legalActions(state).some((a) => game.actionKey(a) === key)) {
        throw new RolloutError(
          'OPPONENT_FAILURE',
          `Player '${player.id}' chose illegal action '${key}' in ${game.stateKey(state)}.`,
        );
      }
      state = game.apply(state, action);
    }
    ply++;
  }
  return state;
}

export function playMatch<S, A>(options: MatchOptions<S, A>): MatchResult {
  const { game, root, agent, opponent, games, rng } = options;
  const seat = options.seat ?? 'alternate';
  if (!Number.isInteger(games) || games < 1) {
    throw new InvalidArgumentError(`A match needs a positive integer number of games, got ${games}.`);
  }
  if (!MATCH_SEATS.includes(seat)) {
    throw new InvalidArgumentError(`Unknown seat '${seat}'; use ${MATCH_SEATS.join(', ')}.`);
  }
  let wins = 0;
  let draws = 0;
  let losses = 0;
  let agentFirst = 0;
  const sum = [0, 0];
  const count = [0, 0];
  for (let g = 0; g < games; g++) {
    if (options.signal?.aborted)
      throw new RolloutError('RUNNER_FAILURE', 'The match was aborted.', { cause: options.signal.reason });
    const agentSeat = seat === 'first' ? 0 : seat === 'second' ? 1 : g % 2;
    const players: [OpponentV1<S, A>, OpponentV1<S, A>] =
      agentSeat === 0 ? [agent, opponent] : [opponent, agent];
    const final = playGame(game, root, players, rng.split(`game-${g}`));
    const r = game.returns(final)[agentSeat] ?? 0;
    if (r > 0) wins++;
    else if (r < 0) losses++;
    else draws++;
    if (agentSeat === 0) agentFirst++;
    sum[agentSeat] = sum[agentSeat]! + r;
    count[agentSeat] = count[agentSeat]! + 1;
  }
  return {
    games,
    wins,
    draws,
    losses,
    agentFirst,
    meanReturn: (sum[0]! + sum[1]!) / games,
    meanReturnBySeat: [sum[0]! / count[0]!, sum[1]! / count[1]!],
  };
}
