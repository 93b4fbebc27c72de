/** Scoring: log-probs of the span tokens of sequences under the current weights. */

import { outputData } from '../runtime/session';
import { gatherAt, placeSeqs } from './batching';
import { type GraphContext, loadScoringGraph, packedFeeds, runsOf, segmentRowLength } from './graphs';
import { type Seq, spanTokens } from './rows';

/** Log-probs of every span token of `seqs` in one flat array: sequence by sequence, span by span. */
export async function scoreFlat(ctx: GraphContext, seqs: readonly Seq[]): Promise<Float32Array> {
  const placed = placeSeqs(seqs);
  const out = new Float32Array(seqs.reduce((n, s) => n + spanTokens(s), 0));
  for (const p of runsOf(ctx, placed, segmentRowLength(ctx, seqs))) {
    const key = await loadScoringGraph(ctx, p);
    const logprobs = outputData(await ctx.runner.run(key, packedFeeds(p)), 'logprobs', Float32Array);
    for (const { offset, positions } of p.rows) out.set(gatherAt(logprobs, positions), offset);
  }
  return out;
}

/** Log-probs of every span token of each sequence (its spans concatenated). */
export async function scoreSeqs(ctx: GraphContext, seqs: readonly Seq[]): Promise<Float32Array[]> {
  const flat = await scoreFlat(ctx, seqs);
  return placeSeqs(seqs).map(({ seq, offset }) => flat.slice(offset, offset + spanTokens(seq)));
}
