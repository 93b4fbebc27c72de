/** Scripted policies and opponents for tests. They return text only (no token ids). */

import type { GameModelV1, OpponentV1, PolicyRequestV1, PolicyResponseV1, PolicyV1 } from '@mage-rl/spec';

/** A policy that answers each request with `respond(request, index)`. */
export function scriptedPolicy(
  respond: (request: PolicyRequestV1, index: number) => string,
  id = 'scripted',
): PolicyV1 & { readonly calls: number } {
  let calls = 0;
  return {
    specificationVersion: 'v1',
    id,
    get calls() {
      return calls;
    },
    async generate(requests) {
      return requests.map((request): PolicyResponseV1 => {
        const text = respond(request, calls++);
        return { text, promptTokens: [], tokens: [], logprobs: [], finishReason: 'stop' };
      });
    },
  };
}

/** A policy that always answers `text`. */
export function constantPolicy(text: string): PolicyV1 {
  return scriptedPolicy(() => text, 'constant');
}

/** An opponent that plays a uniformly random legal action of any game model. */
export function randomLegalOpponent<S, A>(game: GameModelV1<S, A>, id = 'random'): OpponentV1<S, A> {
  return {
    specificationVersion: 'v1',
    id,
    act: (state, { rng }) => rng.pick(game.legalActions(state)),
  };
}

/** An opponent that always plays the first legal action (deterministic, for tests). */
export function firstLegalOpponent<S, A>(game: GameModelV1<S, A>, id = 'first-legal'): OpponentV1<S, A> {
  return {
    specificationVersion: 'v1',
    id,
    act: (state) => game.legalActions(state)[0] as A,
  };
}
