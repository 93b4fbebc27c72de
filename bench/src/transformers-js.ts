/** transformers.js for the decode comparisons: the learner's dependency, not the bench's. */

import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/** The part of transformers.js the benches use. */
export interface TransformersJs {
  env: { allowRemoteModels: boolean };
  Tensor: new (type: 'int64', data: BigInt64Array, dims: number[]) => unknown;
  AutoModelForCausalLM: {
    from_pretrained(
      path: string,
      options: Record<string, unknown>,
    ): Promise<{ generate(options: Record<string, unknown>): Promise<unknown>; dispose(): Promise<unknown> }>;
  };
}

/** Loads transformers.js through the learner package. */
export async function importTransformers(): Promise<TransformersJs> {
  const require = createRequire(import.meta.url);
  const learnerPkg = require.resolve('@mage-rl/learner/package.json');
  const path = createRequire(learnerPkg).resolve('@huggingface/transformers');
  return (await import(pathToFileURL(path).href)) as TransformersJs;
}
