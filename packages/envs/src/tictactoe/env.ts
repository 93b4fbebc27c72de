/**
 * `createTicTacToe(options)`: the Tic-Tac-Toe `EnvV1` (text face + bitboard game model). With `reveal:
 * 'moves'` a finished attempt reveals its moves on one line, with `reveal: 'line'` the agent's own moves.
 * `createFrozenTicTacToe(options)`: the same game as its own env, `tictactoe-frozen`, whose defaults are the
 * frozen opponent (`replies: 'board'`) and the agent's line (`reveal: 'line'`). See architecture/envs.md.
 */

import type { EnvObservationV1, EnvStepV1, EnvTaskV1, EnvV1, ParsedAction, PromptStyle } from '@mage-rl/spec';
import { z } from 'zod';
import { textEnv } from '../episode/text-env';
import { TwoPlayerEpisode } from '../episode/two-player-episode';
import { maxTurnsOption, truncationOption } from '../options/turn-options';
import {
  emptyCells,
  initialTicTacToeState,
  TICTACTOE_MAX_SIZE,
  TICTACTOE_MIN_SIZE,
  type TicTacToeAction,
  type TicTacToeState,
  ticTacToeGame,
  ticTacToeKey,
} from './game';
import {
  agentRows,
  cellText,
  formatTicTacToeAction,
  moveText,
  parseTicTacToeAction,
  renderBoard,
  ticTacToeAgentLine,
  ticTacToeMovesLine,
  ticTacToeRules,
} from './text';

export const TICTACTOE_ENV_ID = 'tictactoe';
/** Tic-Tac-Toe against a frozen opponent, as an env of its own (its options' defaults differ). */
export const TICTACTOE_FROZEN_ENV_ID = 'tictactoe-frozen';

/** The `replies` option: the opponent's randomness per attempt and turn, or per board (frozen). */
export const TICTACTOE_REPLIES = ['turn', 'board'] as const;
export type TicTacToeReplies = (typeof TICTACTOE_REPLIES)[number];

/**
 * The `reveal` option: what a finished attempt's `reveal()` returns — nothing, its moves on one line, or
 * the agent's own moves on one line.
 */
export const TICTACTOE_REVEALS = ['none', 'moves', 'line'] as const;
export type TicTacToeReveal = (typeof TICTACTOE_REVEALS)[number];

export const ticTacToeOptionsSchema = z.strictObject({
  /** Board size n (n×n, win length n). */
  size: z.number().int().min(TICTACTOE_MIN_SIZE).max(TICTACTOE_MAX_SIZE).default(3),
  maxTurns: maxTurnsOption(1, 8),
  /** Step reward for a win; a loss gives its negation, a draw 0. */
  winReward: z.number().finite().min(0).default(10),
  /** `zero` scores an attempt stopped by the turn limit as neither win nor loss, `loss` as −winReward. */
  truncation: truncationOption(),
  /**
   * Where the opponent's randomness comes from. `turn`: a stream per attempt and turn, so a stochastic
   * opponent (MCTS, minimax's tie-breaks, random) may answer the same board differently in each attempt.
   * `board`: a stream per board, so for the whole meta-episode it answers each board the same way — a
   * frozen opponent whose replies an agent can learn from its notes.
   */
  replies: z.enum(TICTACTOE_REPLIES).default('turn'),
  /**
   * What a finished attempt reveals. `none`: nothing. `moves`: its moves in order on one line
   * (`ticTacToeMovesLine`: the opponent's opening when the agent sits second, then every turn's event
   * line, invalid turns too), so a note can state a line to replay by copying it. `line`: the agent's
   * own legal moves in order (`ticTacToeAgentLine`), far shorter: against a frozen opponent they alone
   * replay the attempt, since the same boards draw the same replies.
   */
  reveal: z.enum(TICTACTOE_REVEALS).default('none'),
});

/** The options of `tictactoe-frozen`: Tic-Tac-Toe's, with the frozen opponent and the agent's line by default. */
export const frozenTicTacToeOptionsSchema = ticTacToeOptionsSchema.extend({
  replies: z.enum(TICTACTOE_REPLIES).default('board'),
  reveal: z.enum(TICTACTOE_REVEALS).default('line'),
});

export type TicTacToeOptions = z.input<typeof ticTacToeOptionsSchema>;
export type TicTacToeResolvedOptions = z.output<typeof ticTacToeOptionsSchema>;

export type TicTacToeEnv = EnvV1<TicTacToeState, TicTacToeAction>;

/** The Tic-Tac-Toe env. Throws a `ConfigError` naming the bad option. */
export function createTicTacToe(options: TicTacToeOptions = {}): TicTacToeEnv {
  return textEnv(TICTACTOE_ENV_ID, ticTacToeOptionsSchema, options, ticTacToeParts);
}

/**
 * Tic-Tac-Toe as the env `tictactoe-frozen`: its options are Tic-Tac-Toe's with `replies: 'board'` and
 * `reveal: 'line'` by default. Throws a `ConfigError` naming the bad option.
 */
export function createFrozenTicTacToe(options: TicTacToeOptions = {}): TicTacToeEnv {
  return textEnv(TICTACTOE_FROZEN_ENV_ID, frozenTicTacToeOptionsSchema, options, ticTacToeParts);
}

function ticTacToeParts(resolved: TicTacToeResolvedOptions) {
  return {
    game: ticTacToeGame(resolved.size),
    needsOpponent: true,
    createEpisode: (task: EnvTaskV1<TicTacToeState, TicTacToeAction>) => new TicTacToeEpisode(task, resolved),
    formatAction: (cell: TicTacToeAction, style: PromptStyle) =>
      formatTicTacToeAction(cell, resolved.size, style),
  };
}

/** The opponent's stream for a board: its state key (both players' cells and who is to move). */
const boardStream = (state: TicTacToeState): string => `board/${ticTacToeKey(state)}`;

class TicTacToeEpisode extends TwoPlayerEpisode<TicTacToeState, TicTacToeAction, TicTacToeResolvedOptions> {
  protected readonly label = 'Tic-Tac-Toe';
  protected readonly initial: TicTacToeState;
  protected current: TicTacToeState;
  /** This attempt's event lines, in order (what `reveal: 'moves'` gathers). */
  private events: string[] = [];
  /** This attempt's legal moves of the agent, in order (what `reveal: 'line'` gathers). */
  private moves: TicTacToeAction[] = [];

  constructor(task: EnvTaskV1<TicTacToeState, TicTacToeAction>, options: TicTacToeResolvedOptions) {
    super(task, options, ticTacToeGame(options.size));
    this.initial = this.opened(initialTicTacToeState(options.size));
    this.current = this.initial;
  }

  rules(): string {
    return ticTacToeRules(this.options.size, this.task.style, this.options.maxTurns);
  }

  /** With `replies: 'board'` the opening draws from `opponent/board/<board>`, like every reply. */
  protected override openingStream(start: TicTacToeState, attempt?: number): string {
    return this.options.replies === 'board' ? boardStream(start) : super.openingStream(start, attempt);
  }

  /** With `replies: 'board'` the reply to a board draws from `opponent/board/<board>`: one per board. */
  protected override replyStream(state: TicTacToeState): string {
    return this.options.replies === 'board' ? boardStream(state) : super.replyStream(state);
  }

  /** A new attempt gathers its event lines afresh. */
  protected override restart(): void {
    this.events = [];
    this.moves = [];
  }

  /**
   * Once the attempt is over: with `reveal: 'moves'` its moves on one line, the opponent's opening first
   * when the agent sits second; with `reveal: 'line'` the agent's legal moves; nothing otherwise.
   */
  override reveal(): string | undefined {
    if (this.options.reveal === 'none' || !this.done) return undefined;
    if (this.options.reveal === 'line')
      return ticTacToeAgentLine(this.moves, this.options.size, this.task.style);
    // Agent second, the initial board holds one stone: the opponent's (player 0's) opening.
    const opening = this.agent === 1 ? 31 - Math.clz32(this.initial.x) : undefined;
    return ticTacToeMovesLine(opening, this.events, this.options.size, this.task.style);
  }

  /** Every turn's step record goes through here: its event line is kept for the reveal. */
  protected override result(reward: number, valid: boolean, event: string): EnvStepV1 {
    this.events.push(event);
    return super.result(reward, valid, event);
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
      return this.invalid(`${cellText(cell, size)} is taken`);
    }
    this.moves.push(cell);
    const { reply, reward } = this.playRound(cell);
    let event =
      style === 'compact'
        ? `you ${moveText(cell, size, style)}`
        : `You played ${moveText(cell, size, style)}`;
    if (reply !== undefined) {
      event +=
        style === 'compact'
          ? ` opponent ${moveText(reply, size, style)}`
          : `; the opponent played ${moveText(reply, size, style)}`;
    }
    if (style !== 'compact') event += '.';
    return this.result(reward, true, event);
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

  /** A won game returns 1: the win reward. */
  protected rewardPerReturn(): number {
    return this.options.winReward;
  }

  protected illegalOpponentMove(opponentId: string, cell: TicTacToeAction): string {
    return `Opponent '${opponentId}' played an illegal move ${String(cell)}.`;
  }
}
