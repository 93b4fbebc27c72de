import { describe, expect, it } from 'vitest';
import { createRemotePolicy } from './remote-policy';

describe('createRemotePolicy', () => {
  it('sends one chat completion per request and reads text, token ids and log-probs', async () => {
    const bodies: Record<string, unknown>[] = [];
    const fake: typeof fetch = async (_url, init) => {
      bodies.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
      const choice = {
        message: { content: 'b2' },
        finish_reason: 'stop',
        stop_reason: null,
        token_ids: [7, 8],
        logprobs: { content: [{ logprob: -0.5 }, { logprob: -0.25 }] },
      };
      return new Response(JSON.stringify({ choices: [choice], prompt_token_ids: [1, 2, 3] }));
    };
    const policy = createRemotePolicy({ baseURL: 'http://host/v1/', model: 'tiny', fetch: fake });
    const [r] = await policy.generate(
      [{ messages: [{ role: 'user', content: 'move?' }], phase: 'play', seed: 4 }],
      { temperature: 0.7 },
    );
    expect(r).toEqual({
      text: 'b2',
      promptTokens: [1, 2, 3],
      tokens: [7, 8],
      logprobs: [-0.5, -0.25],
      finishReason: 'eos',
    });
    expect(bodies[0]).toMatchObject({ model: 'tiny', temperature: 0.7, seed: 4, return_token_ids: true });
  });

  it('turns an error answer into a RolloutError with the server message', async () => {
    const fake: typeof fetch = async () =>
      new Response(JSON.stringify({ error: { message: 'no such model' } }), { status: 404 });
    const policy = createRemotePolicy({ baseURL: 'http://host/v1', model: 'x', fetch: fake });
    await expect(policy.generate([{ messages: [], phase: 'play' }])).rejects.toThrow(
      /answered 404: no such model/,
    );
  });
});
