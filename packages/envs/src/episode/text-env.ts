/** The `EnvV1` record shared by the text envs, and the event line of an invalid turn. */

import {
  type EnvEpisodeV1,
  type EnvTaskV1,
  type EnvV1,
  type GameModelV1,
  type JsonObject,
  PROMPT_STYLES,
  type PromptStyle,
} from '@mage-rl/core';

export interface TextEnvParts<S, A> {
  readonly id: string;
  /** The resolved (validated, defaulted) options; `maxTurns` is the env's turn limit. */
  readonly options: JsonObject & { readonly maxTurns: number };
  readonly game: GameModelV1<S, A>;
  readonly needsOpponent: boolean;
  readonly createEpisode: (task: EnvTaskV1<S, A>) => EnvEpisodeV1<S, A>;
  readonly formatAction: (action: A, style: PromptStyle) => string;
}

/** An env in every prompt style, with a copy of its resolved options. */
export function textEnv<S, A>(parts: TextEnvParts<S, A>): EnvV1<S, A> {
  return {
    specificationVersion: 'v1',
    id: parts.id,
    options: { ...parts.options },
    game: parts.game,
    promptStyles: PROMPT_STYLES,
    maxTurns: parts.options.maxTurns,
    needsOpponent: parts.needsOpponent,
    createEpisode: parts.createEpisode,
    formatAction: parts.formatAction,
  };
}

/** The event line of an invalid turn: just `invalid` in compact prompts (small vocabulary), else with why. */
export function invalidEvent(style: PromptStyle, reason: string): string {
  return style === 'compact' ? 'invalid' : `invalid: ${reason}`;
}
