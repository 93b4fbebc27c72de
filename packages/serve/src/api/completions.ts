/**
 * `POST /v1/completions`: text or token-id prompts (one or many), n choices each; with `logprobs`, the
 * sampled tokens' log-probs (and `logprobs` alternatives per position), with `return_token_ids` the
 * prompt and response token ids, as vLLM returns them for RL trainers.
 */

import type { ServerResponse } from 'node:http';
import type { TokenizerV1 } from '@mage-rl/learner';
import { badRequest } from '../http/errors';
import { type ApiContext, adapterOf, streamChunks } from './context';
import { type ChoiceOutput, createTextStream, type GenerationSpec, tokenText } from './generation';
import { type CompletionRequest, completionRequestSchema, parseBody, refuseUnsupported } from './schemas';
import { generationAnswer, generationSpecOf, streamGeneration } from './stream';

/** OpenAI's default `max_tokens` for completions. */
const DEFAULT_COMPLETION_TOKENS = 16;

function promptsOf(tok: TokenizerV1, prompt: CompletionRequest['prompt']): number[][] {
  if (typeof prompt === 'string') return [tok.encode(prompt)];
  if (prompt.every((p) => typeof p === 'string')) return (prompt as string[]).map((p) => tok.encode(p));
  if (prompt.every((p) => typeof p === 'number')) return [prompt as number[]];
  return prompt as number[][];
}

function specOf(ctx: ApiContext, r: CompletionRequest): GenerationSpec {
  refuseUnsupported(r);
  if (r.echo) throw badRequest('echo is not supported.', 'echo');
  if (r.suffix) throw badRequest('suffix is not supported.', 'suffix');
  if (r.best_of !== null && r.best_of !== undefined && r.best_of !== (r.n ?? 1))
    throw badRequest('best_of must equal n.', 'best_of');
  const adapter = adapterOf(ctx, r.model);
  const prompts = promptsOf(ctx.engine.model.tokenizer, r.prompt);
  prompts.forEach((p, i) => {
    if (p.length === 0) throw badRequest(`Prompt ${i} is empty.`, 'prompt');
  });
  return generationSpecOf(r, {
    prompts,
    maxTokens: r.max_tokens ?? DEFAULT_COMPLETION_TOKENS,
    topLogprobs: r.logprobs ?? 0,
    adapter,
  });
}

function logprobsOf(tok: TokenizerV1, c: ChoiceOutput, asIds: boolean) {
  let offset = 0;
  const tokens = c.tokens.map((id) => tokenText(tok, id, asIds));
  return {
    tokens,
    token_logprobs: c.logprobs,
    top_logprobs: c.top
      ? c.top.map((alts) => Object.fromEntries(alts.map((t) => [tokenText(tok, t.token, asIds), t.logprob])))
      : null,
    text_offset: tokens.map((t) => {
      const at = offset;
      offset += t.length;
      return at;
    }),
  };
}

function choiceJson(r: CompletionRequest, spec: GenerationSpec, tok: TokenizerV1, c: ChoiceOutput) {
  const withLogprobs = r.logprobs !== null && r.logprobs !== undefined;
  return {
    index: c.index,
    text: c.text,
    logprobs: withLogprobs ? logprobsOf(tok, c, r.return_tokens_as_token_ids === true) : null,
    finish_reason: c.finishReason,
    stop_reason: c.stopReason,
    ...(r.return_token_ids ? { prompt_token_ids: spec.prompts[c.promptIndex], token_ids: c.tokens } : {}),
  };
}

export async function completions(ctx: ApiContext, body: unknown, res: ServerResponse): Promise<unknown> {
  const r = parseBody(completionRequestSchema, body);
  const spec = specOf(ctx, r);
  const tok = ctx.engine.model.tokenizer;
  if (r.stream) return streamCompletions(ctx, r, spec, res);
  return generationAnswer(ctx, spec, { prefix: 'cmpl', object: 'text_completion', model: r.model }, (c) =>
    choiceJson(r, spec, tok, c),
  );
}

/** Streams text deltas per choice, a final chunk per choice (with log-probs and ids when asked), `[DONE]`. */
function streamCompletions(ctx: ApiContext, r: CompletionRequest, spec: GenerationSpec, res: ServerResponse) {
  const tok = ctx.engine.model.tokenizer;
  const chunk = streamChunks(ctx, 'cmpl', 'text_completion', r.model);
  const total = spec.prompts.length * spec.n;
  const streams = Array.from({ length: total }, () => createTextStream(tok, spec.stop, spec.includeStop));
  return streamGeneration(ctx, spec, res, r.stream_options?.include_usage === true, {
    chunk,
    delta: (index, tokens) => {
      const d = streams[index]?.push(tokens) ?? '';
      return d === '' ? undefined : chunk([{ index, text: d, logprobs: null, finish_reason: null }]);
    },
    finish: (c, send) => {
      const json = choiceJson(r, spec, tok, c);
      send(chunk([{ ...json, text: streams[c.index]?.finish(c.text) ?? '' }]));
    },
  });
}
