/** What a server serves: a model's config, tokenizer and (merged) weights under a name. */

import type { ModelConfig, TokenizerV1 } from '@mage-rl/learner';

export interface ServedModel {
  /** The model name clients pass as `model` (vLLM's `--served-model-name`). */
  readonly id: string;
  readonly config: ModelConfig;
  readonly tokenizer: TokenizerV1;
  /** Every base weight by Hugging Face name (LoRA adapters of a run merged in). */
  readonly weights: ReadonlyMap<string, Float32Array>;
}
