/** `createTicTacToe(options)`: the Tic-Tac-Toe `EnvV1` (text face + bitboard game model). */

import type {
  AttemptOutcome,
  EnvObservationV1,
  EnvStepV1,
  EnvTaskV1,
  EnvV1,
  ParsedAction,
} from '@mage-rl/spec';
import { z } from 'zod';
import { OUTCOME_DRAW, OUTCOME_LOSS, OUTCOME_TRUNCATED, OUTCOME_WIN, seatPlayer } from '../episode/outcomes';
import { textEnv } from '../episode/text-env';
import { TurnEpisode } from '../episode/turn-episode';
import { maxTurnsOption, truncationOption } from '../options/turn-options';
import {
  emptyCells,
  initialTicTacToeState,
  isTicTacToeOver,
  TICTACTOE_MAX_SIZE,
  TICTACTOE_MIN_SIZE,
  type TicTacToeAction,
  type TicTacToeState,
  ticTacToeGame,
} from './game';
import {
  agentRows,
  cellText,
  formatTicTacToeAction,
  moveText,
  parseTicTacToeAction,
  renderBoard,
  ticTacToeRules,
} from './text';

export const TICTACTOE_ENV_ID = 'tictactoe';

export const ticTacToeOptionsSchema = z.strictObject({
  /** Board size n (n×n, win length n). */
  size: z.number().int().min(TICTACTOE_MIN_SIZE).max(TICTACTOE_MAX_SIZE).default(3),
  maxTurns: maxTurnsOption(1, 8),
  /** Step reward for a win; a loss gives its negation, a draw 0. */
  winReward: z.number().finite().min(0).default(10),
  /** `zero` scores an attempt stopped by the turn limit as neither win nor loss, `loss` as −winReward. */
  truncation: truncationOption(),
});

export type TicTacToeOptions = z.input<typeof ticTacToeOptionsSchema>;
export type TicTacToeResolvedOptions = z.output<typeof ticTacToeOptionsSchema>;

export type TicTacToeEnv = EnvV1<TicTacToeState, TicTacToeAction>;

/** The Tic-Tac-Toe env. Throws a `ConfigError` naming the bad option. */
export function createTicTacToe(options: TicTacToeOptions = {}): TicTacToeEnv {
  return textEnv(TICTACTOE_ENV_ID, ticTacToeOptionsSchema, options, (resolved) => ({
    game: ticTacToeGame(resolved.size),
    needsOpponent: true,
    createEpisode: (task) => new TicTacToeEpisode(task, resolved),
    formatAction: (cell, style) => formatTicTacToeAction(cell, resolved.size, style),
  }));
}

class TicTacToeEpisode extends TurnEpisode<TicTacToeState, TicTacToeAction, TicTacToeResolvedOptions> {
  protected readonly label = 'Tic-Tac-Toe';
  private readonly agent: 0 | 1;
  protected readonly initial: TicTacToeState;
  protected current: TicTacToeState;

  constructor(task: EnvTaskV1<TicTacToeState, TicTacToeAction>, options: TicTacToeResolvedOptions) {
    super(task, options);
    this.agent = seatPlayer(task.seat);
    let start = initialTicTacToeState(options.size);
    // The opponent's opening move (agent second) is part of the restorable initial state.
    if (this.agent === 1)
      start = ticTacToeGame(options.size).apply(start, this.opponentReply(start, 'reset'));
    this.initial = start;
    this.current = start;
  }

  protected ended(): boolean {
    return isTicTacToeOver(this.current);
  }

  rules(): string {
    return ticTacToeRules(this.options.size, this.task.style, this.options.maxTurns);
  }

  initialText(): string {
    return renderBoard(this.initial, this.agent, this.task.style);
  }

  parse(response: string): ParsedAction<TicTacToeAction> {
    return parseTicTacToeAction(response, this.current);
  }

  protected play(cell: TicTacToeAction): EnvStepV1 {
    const { style } = this.task;
    const size = this.options.size;
    if (!emptyCells(this.current).includes(cell)) {
      return this.invalid(`${cellText(cell, size)} is not an empty cell`);
    }
    const game = ticTacToeGame(size);
    let state = game.apply(this.current, cell);
    let event =
      style === 'compact'
        ? `you ${moveText(cell, size, style)}`
        : `You played ${moveText(cell, size, style)}`;
    if (!game.isTerminal(state)) {
      const reply = this.opponentReply(state, `attempt-${this.attempt}/turn-${this.turns}`);
      state = game.apply(state, reply);
      event +=
        style === 'compact'
          ? ` opponent ${moveText(reply, size, style)}`
          : `; the opponent played ${moveText(reply, size, style)}`;
    }
    this.current = state;
    let reward = 0;
    if (game.isTerminal(state)) reward = (game.returns(state)[this.agent] ?? 0) * this.options.winReward;
    if (style !== 'compact') event += '.';
    return this.result(reward, true, event);
  }

  private opponentReply(state: TicTacToeState, stream: string): TicTacToeAction {
    return this.opponentMove({
      game: ticTacToeGame(state.size),
      state,
      player: state.toMove,
      stream,
      isLegal: (cell) => emptyCells(state).includes(cell),
      illegal: (id, cell) => `Opponent '${id}' played an illegal move ${String(cell)}.`,
    });
  }

  protected observe(): EnvObservationV1 {
    const rows = agentRows(this.current, this.agent);
    return {
      text: renderBoard(this.current, this.agent, this.task.style),
      anchor: `tictactoe:${rows.join('/')}`,
      info: {
        board: rows,
        legal: emptyCells(this.current).map((c) => cellText(c, this.options.size)),
        seat: this.task.seat,
      },
    };
  }

  /** With `truncation: loss`, a lost game. */
  protected override truncatedReward(reward: number): number {
    return this.options.truncation === 'loss' ? -this.options.winReward : reward;
  }

  protected outcome(): AttemptOutcome {
    const s = this.current;
    if (s.winner !== null) return s.winner === this.agent ? OUTCOME_WIN : OUTCOME_LOSS;
    if (isTicTacToeOver(s)) return OUTCOME_DRAW;
    return OUTCOME_TRUNCATED;
  }
}
