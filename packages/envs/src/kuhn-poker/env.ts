/**
 * `createKuhnPoker(options)`: the Kuhn Poker `EnvV1`. Meta-episode modes: `same-deal` (every attempt
 * replays the deal of the task) and `new-deal` (attempt k > 0 deals fresh cards from its own stream).
 */

import type {
  EnvObservationV1,
  EnvStepV1,
  EnvTaskV1,
  EnvV1,
  ParsedAction,
  PromptStyle,
  Rng,
} from '@mage-rl/spec';
import { z } from 'zod';
import { textEnv } from '../episode/text-env';
import { TwoPlayerEpisode } from '../episode/two-player-episode';
import { maxTurnsOption, truncationOption } from '../options/turn-options';
import {
  isKuhnTerminalHistory,
  KUHN_DEALS,
  type KuhnAction,
  type KuhnState,
  kuhnDealt,
  kuhnGame,
} from './game';
import {
  agentPayoff,
  formatKuhnAction,
  kuhnActionWord,
  kuhnRules,
  parseKuhnAction,
  renderKuhnState,
} from './text';

export const KUHN_ENV_ID = 'kuhn-poker';
export const KUHN_MODES = ['same-deal', 'new-deal'] as const;
export type KuhnMode = (typeof KUHN_MODES)[number];

export const kuhnPokerOptionsSchema = z.strictObject({
  /** `same-deal`: every attempt replays the task's deal. `new-deal`: each attempt deals fresh cards. */
  mode: z.enum(KUHN_MODES).default('same-deal'),
  /** Whether `reveal()` shows both cards after a showdown (for the history record). */
  revealShowdown: z.boolean().default(true),
  maxTurns: maxTurnsOption(2, 6),
  /** Step reward per chip won at the end of the hand. */
  chipReward: z.number().finite().min(0).default(5),
  /** `loss` scores a hand stopped by the turn limit as a fold: the ante is lost, −chipReward. */
  truncation: truncationOption(),
});

export type KuhnPokerOptions = z.input<typeof kuhnPokerOptionsSchema>;
export type KuhnPokerResolvedOptions = z.output<typeof kuhnPokerOptionsSchema>;
export type KuhnPokerEnv = EnvV1<KuhnState, KuhnAction>;

/** The Kuhn Poker env. Throws a `ConfigError` naming the bad option. */
export function createKuhnPoker(options: KuhnPokerOptions = {}): KuhnPokerEnv {
  return textEnv(KUHN_ENV_ID, kuhnPokerOptionsSchema, options, (resolved) => ({
    game: kuhnGame,
    needsOpponent: true,
    createEpisode: (task) => new KuhnEpisode(task, resolved),
    formatAction: formatKuhnAction,
  }));
}

class KuhnEpisode extends TwoPlayerEpisode<KuhnState, KuhnAction, KuhnPokerResolvedOptions> {
  protected readonly label = 'Kuhn Poker';
  protected initial: KuhnState;
  protected current: KuhnState;

  constructor(task: EnvTaskV1<KuhnState, KuhnAction>, options: KuhnPokerResolvedOptions) {
    super(task, options, kuhnGame);
    this.initial = this.initialFor(0);
    this.current = this.initial;
  }

  rules(): string {
    return kuhnRules(this.task.style, this.options.maxTurns, this.options.chipReward, this.agent);
  }

  initialText(): string {
    return renderKuhnState(this.initial, this.agent, this.task.style);
  }

  /** `new-deal`: a later attempt deals its own cards (a repeated reset of the same attempt keeps them). */
  protected override restart(attempt: number): void {
    if (attempt !== this.attempt && this.options.mode === 'new-deal') this.initial = this.initialFor(attempt);
  }

  parse(response: string): ParsedAction<KuhnAction> {
    return parseKuhnAction(response);
  }

  protected play(action: KuhnAction): EnvStepV1 {
    if (action !== 'PASS' && action !== 'BET') {
      return this.invalid(`'${action}' is not a betting action`);
    }
    const style = this.task.style;
    const opening =
      this.agent === 1 && this.current.history.length === 1
        ? [this.describeLast(this.current, false, style)]
        : [];
    const { afterAgent, reply, state, reward } = this.playRound(action);
    // The opponent's opening (agent second) heads the first turn's line, so the attempt's lines hold
    // the whole betting: a note made of them tells what the opponent did.
    const moves = [...opening, this.describeLast(afterAgent, true, style)];
    if (reply !== undefined) moves.push(this.describeLast(state, false, style));
    let result = '';
    if (kuhnGame.isTerminal(state)) {
      const chips = agentPayoff(state, this.agent);
      const n = Math.abs(chips);
      result =
        style === 'compact'
          ? ` . you ${chips > 0 ? `+${chips}` : String(chips)}`
          : ` You ${chips > 0 ? 'won' : 'lost'} ${n} chip${n === 1 ? '' : 's'}.`;
    }
    const line = moves.join(style === 'compact' ? ' ' : '; ');
    const event =
      style === 'compact' ? `${line}${result}` : `${line[0]?.toUpperCase()}${line.slice(1)}.${result}`;
    return this.result(reward, true, event);
  }

  override reveal(): string | undefined {
    if (!this.options.revealShowdown || !this.done) return undefined;
    const { history, cards } = this.current;
    if (!(history === 'pp' || history === 'bb' || history === 'pbb') || !cards) return undefined;
    const mine = cards[this.agent];
    const theirs = cards[1 - this.agent];
    if (!mine || !theirs) return undefined;
    return this.task.style === 'compact'
      ? `showdown you ${mine} opp ${theirs}`
      : `Showdown: you had ${mine}, the opponent had ${theirs}.`;
  }

  /** The state attempt `attempt` starts from: the deal, then the opponent's opening bet if it acts first. */
  private initialFor(attempt: number): KuhnState {
    const perAttempt = this.options.mode === 'new-deal' && attempt > 0;
    const dealRng: Rng = perAttempt
      ? this.task.rng.split('deal').split(`attempt-${attempt}`)
      : this.task.rng.split('deal');
    return this.opened(kuhnDealt(dealRng.pick(KUHN_DEALS)), perAttempt ? attempt : undefined);
  }

  private describeLast(state: KuhnState, byAgent: boolean, style: PromptStyle): string {
    const i = state.history.length - 1;
    const ch = state.history[i];
    if (style === 'compact') return `${byAgent ? 'you' : 'opp'} ${ch === 'b' ? 'BET' : 'PASS'}`;
    return `${byAgent ? 'you' : 'the opponent'} ${kuhnActionWord(state.history, i)}`;
  }

  protected observe(): EnvObservationV1 {
    const { cards, history } = this.current;
    const card = cards?.[this.agent] ?? '?';
    return {
      text: renderKuhnState(this.current, this.agent, this.task.style),
      anchor: `kuhn-poker:${card}:${history}`,
      info: {
        card,
        history,
        legal: isKuhnTerminalHistory(history) ? [] : ['PASS', 'BET'],
        seat: this.task.seat,
      },
    };
  }

  /** The game returns chips: the reward per chip. */
  protected rewardPerReturn(): number {
    return this.options.chipReward;
  }

  protected illegalOpponentMove(opponentId: string, action: KuhnAction): string {
    return `Opponent '${opponentId}' played an illegal Kuhn action '${String(action)}'.`;
  }
}
