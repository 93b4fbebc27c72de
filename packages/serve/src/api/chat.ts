/** `POST /v1/chat/completions`: the chat template, sampling, n, stop, seed, log-probs, streaming. */

import type { ServerResponse } from 'node:http';
import type { ChatMessage } from '@mage-rl/core';
import type { TokenizerV1 } from '@mage-rl/learner';
import { badRequest } from '../http/errors';
import { type ApiContext, adapterOf, streamChunks } from './context';
import { type ChoiceOutput, createTextStream, type GenerationSpec, tokenText } from './generation';
import { type ChatRequest, chatRequestSchema, parseBody, refuseUnsupported } from './schemas';
import { generationAnswer, generationSpecOf, streamGeneration } from './stream';

/** The request's messages as the tokenizer's chat messages (text parts joined; other parts refused). */
function messagesOf(r: ChatRequest): ChatMessage[] {
  return r.messages.map((m, i) => {
    let text = '';
    if (typeof m.content === 'string') text = m.content;
    else if (Array.isArray(m.content)) {
      for (const part of m.content) {
        if (part.type !== 'text' || !('text' in part))
          throw badRequest(
            `Content parts of type '${part.type}' are not supported.`,
            `messages.${i}.content`,
          );
        text += part.text;
      }
    }
    const role = m.role === 'developer' ? 'system' : m.role;
    return m.token_ids ? { role, content: text, tokens: m.token_ids } : { role, content: text };
  });
}

function specOf(ctx: ApiContext, r: ChatRequest): GenerationSpec {
  refuseUnsupported(r);
  if (r.tools && r.tools.length > 0) throw badRequest('tools are not supported.', 'tools');
  if (r.response_format && r.response_format.type !== 'text')
    throw badRequest('Only response_format {"type": "text"} is supported.', 'response_format');
  const adapter = adapterOf(ctx, r.model);
  const prompt = ctx.engine.model.tokenizer.encodeChat(messagesOf(r));
  return generationSpecOf(r, {
    prompts: [prompt],
    maxTokens: r.max_completion_tokens ?? r.max_tokens,
    topLogprobs: r.logprobs ? (r.top_logprobs ?? 0) : 0,
    adapter,
  });
}

const bytesOf = (s: string) => [...Buffer.from(s, 'utf8')];

function logprobsContent(tok: TokenizerV1, c: ChoiceOutput, from = 0, to = c.tokens.length) {
  return c.tokens.slice(from, to).map((id, j) => {
    const i = from + j;
    const token = tokenText(tok, id, false);
    return {
      token,
      logprob: c.logprobs[i] as number,
      bytes: bytesOf(token),
      top_logprobs: (c.top?.[i] ?? []).map((t) => {
        const s = tokenText(tok, t.token, false);
        return { token: s, logprob: t.logprob, bytes: bytesOf(s) };
      }),
    };
  });
}

export async function chatCompletions(ctx: ApiContext, body: unknown, res: ServerResponse): Promise<unknown> {
  const r = parseBody(chatRequestSchema, body);
  const spec = specOf(ctx, r);
  if (r.stream) return streamChat(ctx, r, spec, res);
  const tok = ctx.engine.model.tokenizer;
  return generationAnswer(
    ctx,
    spec,
    { prefix: 'chatcmpl', object: 'chat.completion', model: r.model },
    (c) => ({
      index: c.index,
      message: { role: 'assistant', content: c.text },
      logprobs: r.logprobs ? { content: logprobsContent(tok, c) } : null,
      finish_reason: c.finishReason,
      stop_reason: c.stopReason,
      ...(r.return_token_ids ? { token_ids: c.tokens } : {}),
    }),
    r.return_token_ids ? { prompt_token_ids: spec.prompts[0] } : {},
  );
}

/**
 * Streams a chat completion: a role chunk per choice, content deltas as tokens arrive (at the end,
 * token by token with their log-probs, when log-probs are asked for), a finishing chunk per choice,
 * an optional usage chunk, then `[DONE]`.
 */
function streamChat(ctx: ApiContext, r: ChatRequest, spec: GenerationSpec, res: ServerResponse) {
  const tok = ctx.engine.model.tokenizer;
  const chunk = streamChunks(ctx, 'chatcmpl', 'chat.completion.chunk', r.model);
  const streams = Array.from({ length: spec.n }, () => createTextStream(tok, spec.stop, spec.includeStop));
  const live = !r.logprobs;
  return streamGeneration(ctx, spec, res, r.stream_options?.include_usage === true, {
    chunk,
    opening: () =>
      Array.from({ length: spec.n }, (_, index) =>
        chunk([{ index, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]),
      ),
    delta: (index, tokens) => {
      if (!live) return undefined;
      const d = streams[index]?.push(tokens) ?? '';
      return d === ''
        ? undefined
        : chunk([{ index, delta: { content: d }, logprobs: null, finish_reason: null }]);
    },
    finish: (c, send) => {
      const s = streams[c.index];
      if (!live && s) {
        // Token by token with log-probs, now that they are known.
        c.tokens.forEach((_, i) => {
          const d = s.push(c.tokens.slice(0, i + 1));
          send(
            chunk([
              {
                index: c.index,
                delta: { content: d },
                logprobs: { content: logprobsContent(tok, c, i, i + 1) },
                finish_reason: null,
              },
            ]),
          );
        });
      }
      const rest = s?.finish(c.text) ?? '';
      send(
        chunk([
          {
            index: c.index,
            delta: rest === '' ? {} : { content: rest },
            logprobs: null,
            finish_reason: c.finishReason,
            stop_reason: c.stopReason,
            ...(r.return_token_ids ? { token_ids: c.tokens } : {}),
          },
        ]),
      );
    },
  });
}
