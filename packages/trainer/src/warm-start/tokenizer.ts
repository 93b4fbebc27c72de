/** The vocabulary of the embedded model: the compact grammar's words plus what the warm-start corpus holds. */

import type { EnvDefinitionV1 } from '@mage-rl/core';
import { type WordLevelTokenizer, wordLevelTokenizerOf } from '@mage-rl/learner';
import { compactBaseVocabulary } from '@mage-rl/recipes';

/**
 * The tokenizer over the compact grammar plus every piece of `texts` (warm-start prompts and responses).
 * `envs`: env definitions from packages whose words (and opponent ids) join the first-party ones.
 */
export function buildMageTinyTokenizer(
  texts: Iterable<string>,
  options: { readonly envs?: readonly EnvDefinitionV1[] } = {},
): WordLevelTokenizer {
  return wordLevelTokenizerOf(
    (function* () {
      yield* compactBaseVocabulary(options.envs);
      yield* texts;
    })(),
  );
}
