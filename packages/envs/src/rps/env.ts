/**
 * `createRps(options)`: Rock-Paper-Scissors against the task's opponent, `maxTurns` throws per attempt.
 * The opponent is a bot with a hidden rule, the same in every attempt of the meta-episode; each attempt
 * starts a fresh game, so the bot's state (which depends only on the throws of the attempt) starts afresh
 * too, and whatever the agent learned of the rule reaches the next attempt only through its notes. Each
 * throw won scores `winReward` (draws and losses 0); the attempt is a success when every throw wins. A
 * finished attempt reveals its rounds on one line. See architecture/envs.md.
 */

import type { AttemptOutcome, EnvStepV1, EnvTaskV1, EnvV1, JsonObject, ParsedAction } from '@mage-rl/spec';
import { z } from 'zod';
import { OUTCOME_LOSS, OUTCOME_TRUNCATED, OUTCOME_WIN } from '../episode/outcomes';
import { SingleAgentEpisode } from '../episode/single-agent-episode';
import { textEnv } from '../episode/text-env';
import {
  initialRpsState,
  isRpsOver,
  RPS_MAX_THROWS,
  RPS_MIN_THROWS,
  RPS_THROWS,
  type RpsState,
  type RpsThrow,
  roundScore,
  rpsGame,
  rpsKey,
} from './game';
import { formatRpsAction, parseRpsAction, renderRps, rpsEvent, rpsRoundsLine, rpsRules } from './text';

export const RPS_ENV_ID = 'rps';

export const rpsOptionsSchema = z.strictObject({
  /** Throws per attempt: every turn is one throw (an invalid answer forfeits it). */
  maxTurns: z.number().int().min(RPS_MIN_THROWS).max(RPS_MAX_THROWS).default(3),
  /** Step reward of a throw won; a draw or a loss scores 0. */
  winReward: z.number().finite().min(0).default(10),
});

export type RpsOptions = z.input<typeof rpsOptionsSchema>;
export type RpsResolvedOptions = z.output<typeof rpsOptionsSchema>;
export type RpsEnv = EnvV1<RpsState, RpsThrow>;

/** The Rock-Paper-Scissors env. Throws a `ConfigError` naming the bad option. */
export function createRps(options: RpsOptions = {}): RpsEnv {
  return textEnv(RPS_ENV_ID, rpsOptionsSchema, options, (resolved) => ({
    game: rpsGame(resolved.maxTurns),
    needsOpponent: true,
    createEpisode: (task) => new RpsEpisode(task, resolved),
    formatAction: formatRpsAction,
  }));
}

/**
 * The agent is player 0 of the game model whatever its seat (both throw at once, so the seat changes
 * nothing); the opponent answers each throw blind, from the stream `opponent/attempt-k/turn-t`.
 */
class RpsEpisode extends SingleAgentEpisode<RpsState, RpsThrow, RpsResolvedOptions> {
  protected readonly label = 'Rock-Paper-Scissors';
  private readonly game = rpsGame(this.options.maxTurns);

  constructor(task: EnvTaskV1<RpsState, RpsThrow>, options: RpsResolvedOptions) {
    super(task, options, initialRpsState(options.maxTurns));
  }

  protected ended(): boolean {
    return isRpsOver(this.current);
  }

  rules(): string {
    return rpsRules(this.options.maxTurns, this.options.winReward, this.task.style);
  }

  parse(response: string): ParsedAction<RpsThrow> {
    return parseRpsAction(response);
  }

  protected play(mine: RpsThrow): EnvStepV1 {
    const thrown = this.game.apply(this.current, mine);
    const theirs = this.opponentMove({
      game: this.game,
      state: thrown,
      player: 1,
      stream: `attempt-${this.attempt}/turn-${this.turns}`,
      isLegal: (t) => RPS_THROWS.includes(t),
      illegal: (id, t) => `Opponent '${id}' played an illegal throw '${String(t)}'.`,
    });
    this.current = this.game.apply(thrown, theirs);
    const reward = roundScore(mine, theirs) > 0 ? this.options.winReward : 0;
    return this.result(reward, true, rpsEvent(mine, theirs, this.task.style));
  }

  /**
   * After the attempt: its rounds on one line, in order (what the agent saw, gathered). The reflect prompt
   * shows it right before the result, so a note can state the whole attempt by copying one line.
   */
  override reveal(): string | undefined {
    return this.done ? rpsRoundsLine(this.current, this.task.style) : undefined;
  }

  protected render(s: RpsState): string {
    return renderRps(s, this.task.style);
  }

  protected anchor(s: RpsState): string {
    return `rps:${rpsKey(s)}`;
  }

  /** This attempt's rounds: the agent's throws and the opponent's, in order. */
  protected info(s: RpsState): JsonObject {
    const rounds = s.played[1].length;
    return { throws: s.throws, you: s.played[0].slice(0, rounds), opp: [...s.played[1]] };
  }

  /** Won when every throw of the attempt won; an attempt cut short by invalid answers is truncated. */
  protected outcome(): AttemptOutcome {
    if (!this.ended()) return OUTCOME_TRUNCATED;
    const [mine, theirs] = this.current.played;
    return theirs.every((t, i) => roundScore(mine[i]!, t) > 0) ? OUTCOME_WIN : OUTCOME_LOSS;
  }
}
