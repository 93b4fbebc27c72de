import { ConfigError, MageError } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import { RemoteEnvError } from '../errors';
import { inDomainEpisode, remainingExchanges, useTranscriptServer } from '../spawn-server.test-helper';
import { createAlfWorld } from './alfworld';

// In-domain games are 2420–2619: seed 5 is game 2425.
const episodeOf = (url: string, extra: Record<string, unknown> = {}) =>
  inDomainEpisode(createAlfWorld, url, 5, { maxTurns: 3, ...extra });

describe('ALFWorld over the AgentGym dialect (recorded transcripts)', () => {
  const startTranscript = useTranscriptServer();

  it('resets to the seed’s game, lists admissible commands without help, detects the win, restarts the same game', async () => {
    const server = await startTranscript('alfworld-play');
    const e = episodeOf(server.url);
    const first = e.reset(0);
    expect(e.initialText()).toContain('Your task is to: put a cool mug in cabinet.');
    expect(first.text).toContain('Admissible commands: go to cabinet 1, go to countertop 1');
    expect(first.info.admissible).not.toContain('help');
    expect(e.rules()).toMatch(/3 turns/);
    // Not admissible: the turn is spent without a request.
    const bad = e.parse('<action>fly to the moon</action>');
    expect(bad).toEqual({ valid: false, reason: "'fly to the moon' is not an admissible command" });
    expect(e.step(bad)).toMatchObject({ valid: false, done: false, reward: 0 });
    expect(e.parse('go to countertop 1').valid).toBe(false); // no tags
    expect(e.parse('<action>help</action>').valid).toBe(false);
    const go = e.parse('I will look there. <action>  Go to   countertop 1 </action>');
    expect(go).toEqual({ valid: true, action: 'go to countertop 1', text: 'go to countertop 1' });
    const s1 = e.step(go);
    expect(s1).toMatchObject({ valid: true, reward: 0, done: false });
    expect(s1.observation.text).toContain('you see a mug 1');
    const won = e.step(e.parse('<action>take mug 1 from countertop 1</action>'));
    expect(won).toMatchObject({ done: true, reward: 10, outcome: { success: true, label: 'won' } });
    expect(e.done).toBe(true);
    // Attempt 2: the same game on the same instance; three turns without a win.
    e.reset(1);
    e.step(e.parse('<action>look</action>'));
    e.step(e.parse('<action>inventory</action>'));
    const last = e.step(e.parse('<action>nonsense</action>'));
    expect(last).toMatchObject({ done: true, reward: 0, outcome: { success: false, truncated: true } });
    expect(await remainingExchanges(server)).toBe(0);
  });

  it('says clearly what is wrong with a malformed or failing answer', async () => {
    const server = await startTranscript('alfworld-malformed');
    const e = episodeOf(server.url);
    const failures: string[] = [];
    for (let i = 0; i < 4; i++) {
      try {
        e.reset(0);
      } catch (error) {
        expect(error).toBeInstanceOf(RemoteEnvError);
        failures.push((error as Error).message);
      }
    }
    expect(failures[0]).toMatch(/unexpected shape at 'available_actions'/);
    expect(failures[1]).toMatch(/reported an error for POST .*\/reset: The id 4 is not valid\./);
    expect(failures[2]).toMatch(/HTTP 500: Internal Server Error/);
    expect(failures[3]).toMatch(/not JSON: <html>not json<\/html>/);
    e.reset(0);
    expect(() => e.step(e.parse('<action>look</action>'))).toThrow(/unexpected shape at 'reward'/);
    expect(await remainingExchanges(server)).toBe(0);
  });

  it('fails fast with the address and the fix when no server answers, after retrying with backoff', () => {
    const e = episodeOf('http://127.0.0.1:9', { retries: 2, retryDelayMs: 20 });
    const started = Date.now();
    let error: unknown;
    try {
      e.reset(0);
    } catch (caught) {
      error = caught;
    }
    expect(MageError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /the ALFWorld server at http:\/\/127\.0\.0\.1:9 did not answer POST \/create: .*ECONNREFUSED.*retried with backoff for 0\.1 s.*Is the server running\?/,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
  });

  it('validates options: the url is required, out-of-domain needs a range', () => {
    expect(() => createAlfWorld({})).toThrow(ConfigError);
    expect(() => createAlfWorld({})).toThrow(/alfworld\.url.*--env-url/);
    expect(() => createAlfWorld({ url: 'ftp://x' })).toThrow(/http:\/\//);
    expect(() => createAlfWorld({ url: 'http://x', split: 'out-of-domain' })).toThrow(
      /alfworld\.outOfDomainTasks/,
    );
    expect(() => createAlfWorld({ url: 'http://x', trainTasks: [5, 5] })).toThrow(/end must be greater/);
    const env = createAlfWorld({ url: 'http://x', split: 'out-of-domain', outOfDomainTasks: [0, 134] });
    expect(env.maxTurns).toBe(10);
    expect(env.options).toMatchObject({ url: 'http://x', outOfDomainTasks: [0, 134], maxTurns: 10 });
  });
});
