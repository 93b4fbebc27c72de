/**
 * A `PolicyV1` over an OpenAI-compatible server (`mage serve`, vLLM, SGLang …): each request is one
 * `POST /chat/completions` (the server applies the chat template), sent concurrently so the server can
 * batch them. With `tokenIds` (default; vLLM's `return_token_ids` and `logprobs`) responses carry the
 * prompt and response token ids and the sampled tokens' log-probs, as an in-process policy's do.
 */

import {
  type PolicyRequestV1,
  type PolicyResponseV1,
  type PolicyV1,
  RolloutError,
  type SamplingOptions,
  throwIfAborted,
} from '@mage-rl/spec';

export interface RemotePolicyOptions {
  /** The API base URL, e.g. `http://127.0.0.1:8000/v1`. */
  readonly baseURL: string;
  /** The served model (or adapter) name. */
  readonly model: string;
  readonly apiKey?: string;
  /** Requests in flight at once (default 16). */
  readonly concurrency?: number;
  /** `max_tokens` when neither the request nor the call sets one (default 64, as the learner's policy). */
  readonly defaultMaxTokens?: number;
  /**
   * Ask for token ids and log-probs (vLLM's `return_token_ids`; default true). Turn off for servers
   * that refuse unknown fields (OpenAI's own API): responses are then text only.
   */
  readonly tokenIds?: boolean;
  /** Policy id in records (default `remote:<model>`). */
  readonly id?: string;
  readonly fetch?: typeof fetch;
}

interface ChatChoice {
  readonly message?: { readonly content?: string | null };
  readonly finish_reason?: string;
  readonly stop_reason?: string | number | null;
  readonly token_ids?: readonly number[];
  readonly logprobs?: { readonly content?: readonly { readonly logprob: number }[] | null } | null;
}

interface ChatResponse {
  readonly choices?: readonly ChatChoice[];
  readonly prompt_token_ids?: readonly number[];
}

/** The chat request body of one policy request. */
function bodyOf(o: RemotePolicyOptions, r: PolicyRequestV1, s: SamplingOptions): Record<string, unknown> {
  const stop = r.stop?.filter((x) => x.length > 0) ?? [];
  const tokenIds = o.tokenIds !== false;
  return {
    model: o.model,
    // Earlier responses' token ids go along (mage's `token_ids` extension), so the server's prompt is the
    // in-process one even where decoding and re-encoding a response would differ.
    messages: r.messages.map((m) =>
      tokenIds && m.tokens
        ? { role: m.role, content: m.content, token_ids: m.tokens }
        : { role: m.role, content: m.content },
    ),
    temperature: s.temperature ?? 1,
    top_p: s.topP ?? 1,
    ...((s.topK ?? 0) > 0 ? { top_k: s.topK } : {}),
    max_tokens: r.maxTokens ?? s.maxTokens ?? o.defaultMaxTokens ?? 64,
    ...(r.seed === undefined ? {} : { seed: r.seed }),
    // A policy's responses keep the stop string (PolicyRequestV1.stop).
    ...(stop.length > 0 ? { stop, include_stop_str_in_output: true } : {}),
    ...(tokenIds ? { return_token_ids: true, logprobs: true } : {}),
  };
}

function responseOf(json: ChatResponse): PolicyResponseV1 {
  const c = json.choices?.[0];
  if (c === undefined) throw new RolloutError('POLICY_FAILURE', 'The server answered without a choice.');
  const logprobs = c.logprobs?.content?.map((x) => x.logprob) ?? [];
  // Token ids count only with one log-prob each; otherwise the response is text only (PolicyV1 allows it).
  const complete = c.token_ids !== undefined && logprobs.length === c.token_ids.length;
  const stopString = typeof c.stop_reason === 'string';
  return {
    text: c.message?.content ?? '',
    promptTokens: complete ? (json.prompt_token_ids ?? []) : [],
    tokens: complete ? (c.token_ids ?? []) : [],
    logprobs: complete ? logprobs : [],
    finishReason: c.finish_reason === 'length' ? 'length' : stopString ? 'stop' : 'eos',
  };
}

/** A policy that samples from a model behind an OpenAI-compatible server. */
export function createRemotePolicy(o: RemotePolicyOptions): PolicyV1 {
  const url = `${o.baseURL.replace(/\/+$/, '')}/chat/completions`;
  const doFetch = o.fetch ?? fetch;
  const limit = Math.max(1, o.concurrency ?? 16);

  async function one(r: PolicyRequestV1, s: SamplingOptions): Promise<PolicyResponseV1> {
    let res: Response;
    try {
      res = await doFetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}),
        },
        body: JSON.stringify(bodyOf(o, r, s)),
        ...(s.signal ? { signal: s.signal } : {}),
      });
    } catch (cause) {
      throwIfAborted(s.signal);
      throw new RolloutError('POLICY_FAILURE', `Cannot reach ${url}: ${String(cause)}`, { cause });
    }
    const text = await res.text();
    if (!res.ok) {
      let message = text;
      try {
        message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text;
      } catch {
        // Not JSON: the text itself.
      }
      throw new RolloutError('POLICY_FAILURE', `${url} answered ${res.status}: ${message}`, {
        context: { status: res.status, model: o.model },
      });
    }
    return responseOf(JSON.parse(text) as ChatResponse);
  }

  return {
    specificationVersion: 'v1',
    id: o.id ?? `remote:${o.model}`,
    async generate(requests, sampling = {}) {
      throwIfAborted(sampling.signal);
      const out: PolicyResponseV1[] = new Array(requests.length);
      let next = 0;
      const worker = async () => {
        while (next < requests.length) {
          const i = next++;
          out[i] = await one(requests[i] as PolicyRequestV1, sampling);
        }
      };
      await Promise.all(Array.from({ length: Math.min(limit, requests.length) }, worker));
      return out;
    },
  };
}
