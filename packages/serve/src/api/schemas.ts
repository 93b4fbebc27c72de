/**
 * Request bodies of the OpenAI-compatible endpoints, checked with zod. Unknown fields are ignored (as
 * OpenAI-compatible servers do); fields this server cannot honour (penalties, logit bias, tools, echo,
 * suffix) are refused with a 400 naming the field rather than silently dropped.
 */

import { firstIssue } from '@mage-rl/core';
import { z } from 'zod';
import { badRequest } from '../http/errors';

/** Most stop strings a request may give (OpenAI allows 4; vLLM more). */
export const MAX_STOP_STRINGS = 16;
/** Most alternatives per position (`top_logprobs`, completions' `logprobs`). */
export const MAX_TOP_LOGPROBS = 20;
/** Most choices per prompt. */
export const MAX_N = 16;

const stop = z.union([z.string(), z.array(z.string()).max(MAX_STOP_STRINGS)]).nullish();

/** Fields both endpoints share. */
const common = {
  model: z.string().min(1),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().gt(0).max(1).nullish(),
  /** vLLM's extension: −1 or 0 = off. */
  top_k: z.number().int().min(-1).nullish(),
  max_tokens: z.number().int().min(1).nullish(),
  n: z.number().int().min(1).max(MAX_N).nullish(),
  stop,
  seed: z.number().int().nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).nullish(),
  /** vLLM: return `prompt_token_ids` and each choice's `token_ids`. */
  return_token_ids: z.boolean().nullish(),
  /** vLLM: keep the matched stop string at the end of the text. */
  include_stop_str_in_output: z.boolean().nullish(),
  presence_penalty: z.number().nullish(),
  frequency_penalty: z.number().nullish(),
  logit_bias: z.record(z.string(), z.number()).nullish(),
  user: z.string().nullish(),
};

const textPart = z.object({ type: z.literal('text'), text: z.string() });
const content = z.union([z.string(), z.array(z.union([textPart, z.object({ type: z.string() })]))]).nullish();

export const chatRequestSchema = z.object({
  ...common,
  messages: z
    .array(
      z.object({
        role: z.enum(['system', 'developer', 'user', 'assistant']),
        content,
        name: z.string().nullish(),
        /**
         * mage's extension: an earlier response's token ids, used verbatim in place of re-encoding
         * `content` (as `ChatMessage.tokens` in-process). Servers without it re-encode the content.
         */
        token_ids: z.array(z.number().int().min(0)).nullish(),
      }),
    )
    .min(1),
  max_completion_tokens: z.number().int().min(1).nullish(),
  logprobs: z.boolean().nullish(),
  top_logprobs: z.number().int().min(0).max(MAX_TOP_LOGPROBS).nullish(),
  tools: z.array(z.unknown()).nullish(),
  response_format: z.object({ type: z.string() }).nullish(),
});
export type ChatRequest = z.infer<typeof chatRequestSchema>;

const tokenIds = z.array(z.number().int()).min(1);

export const completionRequestSchema = z.object({
  ...common,
  prompt: z.union([z.string(), z.array(z.string()).min(1), tokenIds, z.array(tokenIds).min(1)]),
  logprobs: z.number().int().min(0).max(MAX_TOP_LOGPROBS).nullish(),
  echo: z.boolean().nullish(),
  suffix: z.string().nullish(),
  best_of: z.number().int().nullish(),
  /** vLLM: log-prob tokens as `token_id:<id>` (exact for byte-level vocabularies). */
  return_tokens_as_token_ids: z.boolean().nullish(),
});
export type CompletionRequest = z.infer<typeof completionRequestSchema>;

export const loadLoraSchema = z.object({
  lora_name: z.string().min(1),
  lora_path: z.string().min(1),
  /** vLLM: replace an adapter of that name instead of refusing. */
  load_inplace: z.boolean().nullish(),
});

export const unloadLoraSchema = z.object({
  lora_name: z.string().min(1),
  lora_int_id: z.number().int().nullish(),
});

/** Parses `body` or throws a 400 naming the first bad field. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest('The request body must be a JSON object.');
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const { path, message } = firstIssue(r.error);
  throw badRequest(`Invalid value for '${path || 'body'}': ${message}.`, path || null);
}

export type Common = { [K in keyof typeof common]?: z.infer<(typeof common)[K]> };

/** Refuses what this server does not implement, naming the field. */
export function refuseUnsupported(r: Common): void {
  if ((r.presence_penalty ?? 0) !== 0)
    throw badRequest('presence_penalty is not supported.', 'presence_penalty');
  if ((r.frequency_penalty ?? 0) !== 0)
    throw badRequest('frequency_penalty is not supported.', 'frequency_penalty');
  if (r.logit_bias && Object.keys(r.logit_bias).length > 0)
    throw badRequest('logit_bias is not supported.', 'logit_bias');
}

/** The stop strings of a request as a list. */
export const stopList = (s: string | readonly string[] | null | undefined): string[] =>
  (s === null || s === undefined ? [] : typeof s === 'string' ? [s] : [...s]).filter((x) => x.length > 0);
