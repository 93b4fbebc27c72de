/**
 * What `POST /v1/chat/completions` and `POST /v1/completions` share beyond their request shapes: the
 * generation spec's common fields, the whole answer's envelope, and streaming a generation as
 * server-sent events.
 */

import type { ServerResponse } from 'node:http';
import { errorBody, toApiError } from '../http/errors';
import { openEventStream } from '../http/sse';
import { type ApiContext, unixTime } from './context';
import {
  type ChoiceOutput,
  type GenerationSpec,
  rowsOf,
  runGeneration,
  samplingOf,
  usageOf,
} from './generation';
import { type Common, stopList } from './schemas';

/** A spec from what differs per endpoint (prompts, token limit, log-probs, adapter) and the common fields. */
export function generationSpecOf(
  r: Common,
  own: Pick<GenerationSpec, 'prompts' | 'maxTokens' | 'topLogprobs' | 'adapter'>,
): GenerationSpec {
  return {
    prompts: own.prompts,
    n: r.n ?? 1,
    maxTokens: own.maxTokens,
    sampling: samplingOf(r),
    seed: r.seed,
    stop: stopList(r.stop),
    includeStop: r.include_stop_str_in_output === true,
    topLogprobs: own.topLogprobs,
    adapter: own.adapter,
  };
}

/** The envelope of an answer: its id prefix (`chatcmpl`), object type and model name. */
export interface AnswerHead {
  readonly prefix: string;
  readonly object: string;
  readonly model: string;
}

/** A whole (not streamed) answer: every choice generated, then one body with the usage. */
export async function generationAnswer(
  ctx: ApiContext,
  spec: GenerationSpec,
  head: AnswerHead,
  choiceJson: (c: ChoiceOutput) => unknown,
  extra: Record<string, unknown> = {},
): Promise<unknown> {
  const choices = await runGeneration(ctx, spec, rowsOf(spec, ctx));
  return {
    id: ctx.nextId(head.prefix),
    object: head.object,
    created: unixTime(),
    model: head.model,
    choices: choices.map(choiceJson),
    usage: usageOf(spec, choices),
    ...extra,
  };
}

export interface StreamParts {
  /** The envelope of a chunk (`streamChunks`). */
  readonly chunk: (choices: unknown[], extra?: Record<string, unknown>) => unknown;
  /** Sent once the stream is open, before generation starts (chat's role chunks). */
  readonly opening?: () => readonly unknown[];
  /** The chunk for the tokens row `index` has so far, or undefined to send nothing yet. */
  readonly delta: (index: number, tokens: readonly number[]) => unknown;
  /** Sends the chunks that close a finished choice. */
  readonly finish: (c: ChoiceOutput, send: (data: unknown) => void) => void;
}

/**
 * Streams a generation: the request is checked (`rowsOf`) before the stream opens, then the opening
 * chunks, deltas as tokens arrive (a client gone stops its rows), the closing chunks of each choice, the
 * usage chunk when `includeUsage`, and `[DONE]`. An error after the stream opened is sent as an event.
 */
export async function streamGeneration(
  ctx: ApiContext,
  spec: GenerationSpec,
  res: ServerResponse,
  includeUsage: boolean,
  parts: StreamParts,
): Promise<undefined> {
  const rows = rowsOf(spec, ctx, (index, tokens) => {
    if (sse.closed) return true;
    const d = parts.delta(index, tokens);
    if (d !== undefined) sse.send(d);
    return false;
  });
  const sse = openEventStream(res);
  for (const c of parts.opening?.() ?? []) sse.send(c);
  try {
    const choices = await runGeneration(ctx, spec, rows);
    for (const c of choices) parts.finish(c, (data) => sse.send(data));
    if (includeUsage) sse.send(parts.chunk([], { usage: usageOf(spec, choices) }));
  } catch (e) {
    sse.send(errorBody(toApiError(e)));
  }
  sse.done();
  return undefined;
}
