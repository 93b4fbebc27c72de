/**
 * What the chat and completions endpoints share: rows from prompts (n choices each, per-choice seeds),
 * token limits, running them through the engine, the finished text (cut at a stop string unless asked
 * to keep it), finish reasons, log-prob alternatives, and incremental text for streaming.
 */

import type { SamplingParams, TokenizerV1 } from '@mage-rl/learner';
import type { TopLogprob } from '../engine/distributions';
import type { RowRequest, RowResult } from '../engine/engine';
import { ApiError, badRequest } from '../http/errors';
import type { ApiContext } from './context';

export interface ServeLimits {
  /** Largest `max_tokens` a request may ask for; also the default cap (default 2,048). */
  readonly maxTokens: number;
}

export interface GenerationSpec {
  readonly prompts: readonly (readonly number[])[];
  readonly n: number;
  readonly maxTokens: number | null | undefined;
  readonly sampling: SamplingParams;
  readonly seed: number | null | undefined;
  readonly stop: readonly string[];
  readonly includeStop: boolean;
  /** Alternatives per position (0: the sampled token's log-prob only). */
  readonly topLogprobs: number;
  readonly adapter: string | null;
}

export interface ChoiceOutput {
  /** Index in the response: prompt index × n + choice. */
  readonly index: number;
  readonly promptIndex: number;
  readonly tokens: readonly number[];
  readonly logprobs: readonly number[];
  readonly text: string;
  readonly finishReason: 'stop' | 'length';
  /** vLLM's `stop_reason`: the stop string that ended the choice, null for EOS or length. */
  readonly stopReason: string | null;
  readonly top: readonly (readonly TopLogprob[])[] | null;
}

export function samplingOf(r: {
  temperature?: number | null | undefined;
  top_p?: number | null | undefined;
  top_k?: number | null | undefined;
}): SamplingParams {
  return { temperature: r.temperature ?? 1, topP: r.top_p ?? 1, topK: Math.max(0, r.top_k ?? 0) };
}

let autoSeed = 0;

/**
 * The engine rows of a spec: each prompt n times; choice 0 takes `seed` itself, choice i `seed/i`.
 * Every row is cancelled once the request's signal aborts (client gone, server stopping).
 */
export function rowsOf(
  spec: GenerationSpec,
  ctx: ApiContext,
  onTokens?: (index: number, tokens: readonly number[]) => boolean,
): RowRequest[] {
  const { engine, limits, signal } = ctx;
  const maxPositions = engine.model.config.maxPositions;
  if (spec.maxTokens !== null && spec.maxTokens !== undefined && spec.maxTokens > limits.maxTokens)
    throw badRequest(
      `max_tokens is ${spec.maxTokens}; this server allows at most ${limits.maxTokens}.`,
      'max_tokens',
    );
  const base = spec.seed ?? `serve/${autoSeed++}`;
  return spec.prompts.flatMap((prompt, p) => {
    const room = maxPositions - prompt.length;
    if (room < 1)
      throw badRequest(
        `The prompt has ${prompt.length} tokens; this model's maximum context length is ${maxPositions}.`,
        'messages',
        'context_length_exceeded',
      );
    const maxTokens = spec.maxTokens ?? Math.min(limits.maxTokens, room);
    if (maxTokens > room)
      throw badRequest(
        `This model's maximum context length is ${maxPositions} tokens; the prompt has ${prompt.length} and max_tokens is ${maxTokens}.`,
        'max_tokens',
        'context_length_exceeded',
      );
    return Array.from({ length: spec.n }, (_, i): RowRequest => {
      const index = p * spec.n + i;
      return {
        prompt,
        seed: spec.prompts.length === 1 && i === 0 ? base : `${base}/${index}`,
        maxTokens,
        sampling: spec.sampling,
        adapter: spec.adapter,
        stop: spec.stop,
        onTokens: (tokens: readonly number[]) => signal.aborted || (onTokens?.(index, tokens) ?? false),
      };
    });
  });
}

/** The text of a finished row: cut before the stop string that ended it (or after it, when kept). */
export function finalText(tokenizer: TokenizerV1, r: RowResult, includeStop: boolean): string {
  const text = tokenizer.decode(r.tokens);
  if (r.stopString === null) return text;
  const at = text.indexOf(r.stopString);
  return at < 0 ? text : text.slice(0, at + (includeStop ? r.stopString.length : 0));
}

/** Runs a spec and shapes every choice (with alternatives when asked). */
export async function runGeneration(
  ctx: ApiContext,
  spec: GenerationSpec,
  rows: readonly RowRequest[],
): Promise<ChoiceOutput[]> {
  const engine = ctx.engine;
  const results = await engine.generate(rows, ctx.client);
  if (ctx.signal.aborted)
    throw new ApiError(503, 'The request was cancelled: the client left or the server is shutting down.', {
      code: 'cancelled',
    });
  const out: ChoiceOutput[] = [];
  for (const [index, r] of results.entries()) {
    const promptIndex = Math.floor(index / spec.n);
    const top =
      spec.topLogprobs > 0
        ? await engine.topLogprobs(spec.prompts[promptIndex] ?? [], r.tokens, spec.topLogprobs, spec.adapter)
        : null;
    out.push({
      index,
      promptIndex,
      tokens: r.tokens,
      logprobs: r.logprobs,
      text: finalText(engine.model.tokenizer, r, spec.includeStop),
      finishReason: r.finishReason === 'length' ? 'length' : 'stop',
      stopReason: r.stopString,
      top,
    });
  }
  return out;
}

/** Token counts for `usage`: each prompt once, every choice's tokens. */
export function usageOf(spec: GenerationSpec, choices: readonly ChoiceOutput[]) {
  const prompt = spec.prompts.reduce((s, p) => s + p.length, 0);
  const completion = choices.reduce((s, c) => s + c.tokens.length, 0);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** A token's text for log-prob listings (`token_id:<id>` when asked, or when it decodes to nothing). */
export function tokenText(tokenizer: TokenizerV1, id: number, asIds: boolean): string {
  if (asIds) return `token_id:${id}`;
  const s = tokenizer.decode([id]);
  return s === '' ? `token_id:${id}` : s;
}

/**
 * Incremental text of a streamed choice. Text is sent only as far as it is final: a trailing partial
 * character (U+FFFD) and as many characters as a stop string could still need are held back, and text
 * stops at a matched stop string.
 */
export function createTextStream(tokenizer: TokenizerV1, stop: readonly string[], includeStop: boolean) {
  const hold = Math.max(0, ...stop.map((s) => s.length - 1));
  let sent = '';
  const cut = (text: string): { text: string; stopped: boolean } => {
    let best = -1;
    let len = 0;
    for (const s of stop) {
      const at = text.indexOf(s);
      if (at >= 0 && (best < 0 || at < best)) {
        best = at;
        len = s.length;
      }
    }
    return best < 0
      ? { text, stopped: false }
      : { text: text.slice(0, best + (includeStop ? len : 0)), stopped: true };
  };
  const delta = (visible: string): string => {
    if (!visible.startsWith(sent) || visible.length <= sent.length) return '';
    const d = visible.slice(sent.length);
    sent = visible;
    return d;
  };
  return {
    /** New final text after `tokens`. */
    push(tokens: readonly number[]): string {
      const full = tokenizer.decode(tokens);
      const c = cut(full);
      if (c.stopped) return delta(c.text);
      let visible = full.slice(0, Math.max(0, full.length - hold));
      if (visible.endsWith('\uFFFD')) visible = visible.slice(0, -1);
      return delta(visible);
    },
    /** The rest of the finished choice's text. */
    finish(text: string): string {
      return delta(text);
    },
  };
}
