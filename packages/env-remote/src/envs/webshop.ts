/**
 * WebShop (a simulated shop with a product search engine) played on an AgentGym `agentenv-webshop`
 * server. A task seed picks a goal index (`session_id`) in the split's range; every attempt of a
 * meta-episode resets the same goal. The agent answers `search[query]` or `click[item]` inside
 * `<action>…</action>`; the attempt succeeds when it ends with a purchase scored exactly 1.0.
 */

import type { AttemptOutcome, EnvObservationV1, EnvTaskV1, EnvV1, ParsedAction } from '@mage-rl/core';
import { z } from 'zod';
import { openWebShop, type WebShopDialect } from '../dialects/webshop';
import { remoteTaskShape } from '../options';
import { firstActionBody, normalizeCommand, shorten } from '../text';
import { type RemoteEnvParts, RemoteEpisode, type RemoteStepResult, remoteEnv } from './remote-episode';
import type { RemoteStateBase } from './remote-game';

export const WEBSHOP_ENV_ID = 'webshop';

/**
 * Options. Goals 0–499 are the evaluation goals and 500 and up the training goals, as in the paper's
 * setup. The end of the training range is a conservative bound that has not been checked against a
 * server here: set `trainTasks` to your server's goal count.
 */
export const webShopOptionsSchema = z.strictObject({
  ...remoteTaskShape({ maxTurns: 12, trainTasks: [500, 6000], inDomainTasks: [0, 500] }),
  /** Env reward of an attempt that ends with a score of exactly 1.0 (0 otherwise; the score is kept in the info). */
  successReward: z.number().finite().default(10),
});
export type WebShopOptions = z.output<typeof webShopOptionsSchema>;

export interface WebShopState extends RemoteStateBase {
  readonly goal: number;
  readonly instruction: string;
  /** The page as the server sends it: segments joined by ` [SEP] `. */
  readonly page: string;
  readonly hasSearchBar: boolean;
  readonly clickables: readonly string[];
  /** WebShop's own score of the purchase (0–1), once the attempt ended with one. */
  readonly purchaseScore: number | null;
}

export const WEBSHOP_OUTCOMES = {
  purchased: { success: true, draw: false, truncated: false, label: 'purchased' },
  mismatch: { success: false, draw: false, truncated: false, label: 'mismatch' },
  truncated: { success: false, draw: false, truncated: true, label: 'truncated' },
} as const satisfies Record<string, AttemptOutcome>;

const SEP = ' [SEP] ';

export function webShopRules(maxTurns: number): string {
  return [
    'You are shopping on a web shop for a customer (WebShop). The task says what to buy.',
    'Each turn you see the current page and the actions it allows:',
    '- search[your query] on a page with a search bar;',
    '- click[item] for one of the clickable items, buttons and options listed.',
    'Answer with exactly one action inside <action>…</action>, for example <action>search[red running shoes]</action>.',
    'An action that is not allowed wastes the turn. Choose the options the task asks for, then click[buy now].',
    `You have ${maxTurns} turns; only a purchase that matches the task exactly counts as a success.`,
  ].join('\n');
}

/** The goal text without the page's `Instruction:` prefix. */
export function webShopInstruction(text: string): string {
  return text.replace(/^\s*instruction:\s*/i, '').trim();
}

/** The page: its segments, each quoted, joined by ` [SEP] `. */
export function renderWebShopPage(page: string): string {
  return page
    .split(SEP)
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => `'${s}'`)
    .join(SEP);
}

/** The admissible actions: `search[<query>]` with a search bar, one `click[…]` per clickable. */
export function webShopActions(hasSearchBar: boolean, clickables: readonly string[]): string[] {
  return [
    ...(hasSearchBar ? ['search[<query>]'] : []),
    ...clickables.filter((c) => normalizeCommand(c) !== 'search').map((c) => `click[${c}]`),
  ];
}

export function renderWebShop(state: WebShopState): string {
  return [
    `Task: ${state.instruction}`,
    `Page: ${renderWebShopPage(state.page)}`,
    `Available actions: ${state.actions.length > 0 ? state.actions.join(', ') : '(none)'}`,
  ].join('\n');
}

/**
 * The action of a response: the lower-cased text of its first `<action>` block, which must be
 * `search[…]` (with a search bar) or `click[x]` for a listed clickable `x`.
 */
export function parseWebShopAction(response: string, state: WebShopState): ParsedAction<string> {
  const block = firstActionBody(response);
  if (!block.ok) return { valid: false, reason: block.reason };
  const action = block.body.trim().toLowerCase();
  const search = /^search\[(.*)\]$/s.exec(action);
  if (search) {
    if (!state.hasSearchBar) return { valid: false, reason: 'this page has no search bar' };
    if (search[1]?.trim() === '') return { valid: false, reason: 'empty search query' };
    return { valid: true, action, text: action };
  }
  const click = /^click\[(.*)\]$/s.exec(action);
  if (click) {
    const target = normalizeCommand(click[1] ?? '');
    const listed = state.clickables.some((c) => normalizeCommand(c) === target && target !== 'search');
    if (!listed) return { valid: false, reason: `'${shorten(target)}' is not clickable on this page` };
    return { valid: true, action, text: action };
  }
  return { valid: false, reason: `'${shorten(action)}' is neither search[…] nor click[…]` };
}

/** WebShop on the server at `options.url` (the server is contacted on the first reset only). */
export function createWebShop(input: unknown): EnvV1<WebShopState, string> {
  return remoteEnv({
    id: WEBSHOP_ENV_ID,
    label: 'WebShop',
    schema: webShopOptionsSchema,
    input,
    noOutOfDomain: 'WebShop has one goal distribution',
    open: openWebShop,
    createEpisode: (task, goal, env) => new WebShopEpisode(task, env, goal),
  });
}

class WebShopEpisode extends RemoteEpisode<WebShopState, WebShopDialect, WebShopOptions> {
  constructor(
    task: EnvTaskV1<WebShopState, string>,
    env: RemoteEnvParts<WebShopOptions, WebShopDialect>,
    private readonly goal: number,
  ) {
    const before: WebShopState = {
      goal,
      instruction: '',
      page: '',
      hasSearchBar: false,
      clickables: [],
      actions: [],
      done: true,
      score: 0,
      purchaseScore: null,
    };
    super(task, env, before);
  }

  rules(): string {
    return webShopRules(this.options.maxTurns);
  }

  protected resetOn(dialect: WebShopDialect, instance: number): WebShopState {
    const { observation } = dialect.reset(instance, this.goal);
    const instruction = webShopInstruction(dialect.instructionText(instance));
    const available = dialect.availableActions(instance);
    return {
      goal: this.goal,
      instruction,
      page: observation,
      hasSearchBar: available.has_search_bar,
      clickables: available.clickables,
      actions: webShopActions(available.has_search_bar, available.clickables),
      done: false,
      score: 0,
      purchaseScore: null,
    };
  }

  parse(response: string): ParsedAction<string> {
    return parseWebShopAction(response, this.state);
  }

  protected stepOn(
    dialect: WebShopDialect,
    instance: number,
    action: string,
    state: WebShopState,
  ): RemoteStepResult<WebShopState> {
    const r = dialect.step(instance, action);
    const available = r.done ? { has_search_bar: false, clickables: [] } : dialect.availableActions(instance);
    const success = r.done && isPerfect(r.reward);
    const next: WebShopState = {
      ...state,
      page: r.state,
      hasSearchBar: available.has_search_bar,
      clickables: available.clickables,
      actions: webShopActions(available.has_search_bar, available.clickables),
      done: r.done,
      score: success ? this.options.successReward : 0,
      purchaseScore: r.done ? r.reward : null,
    };
    return { next, event: `${action} → ${shorten(renderWebShopPage(r.state), 160)}` };
  }

  protected render(state: WebShopState): string {
    return renderWebShop(state);
  }

  protected outcome(state: WebShopState, truncated: boolean): AttemptOutcome {
    return truncated
      ? WEBSHOP_OUTCOMES.truncated
      : isPerfect(state.purchaseScore)
        ? WEBSHOP_OUTCOMES.purchased
        : WEBSHOP_OUTCOMES.mismatch;
  }

  protected observation(s: WebShopState): EnvObservationV1 {
    return {
      text: renderWebShop(s),
      anchor: `webshop:${s.goal}:${s.page}`,
      info: {
        goal: s.goal,
        actions: [...s.actions],
        purchaseScore: s.purchaseScore,
      },
    };
  }
}

/** A WebShop score of exactly 1.0 (up to float noise). */
function isPerfect(score: number | null): boolean {
  return score !== null && Math.abs(score - 1) < 1e-9;
}
