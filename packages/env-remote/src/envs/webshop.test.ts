import { describe, expect, it } from 'vitest';
import { closeRemoteEnvs } from '../lifecycle';
import { inDomainEpisode, remainingExchanges, useTranscriptServer } from '../spawn-server.test-helper';
import { createWebShop, parseWebShopAction, renderWebShopPage, type WebShopState } from './webshop';

// In-domain goals are 0–499: seed 517 is goal 17.
const episodeOf = (url: string) => inDomainEpisode(createWebShop, url, 517);

describe('WebShop over the AgentGym dialect (recorded transcripts)', () => {
  const startTranscript = useTranscriptServer();

  it('shows the task apart from the quoted page, parses search/click, scores exactly 1.0 as success', async () => {
    const server = await startTranscript('webshop-play');
    const e = episodeOf(server.url);
    const o = e.reset(0);
    expect(o.text.split('\n')).toEqual([
      'Task: i need a red cotton t-shirt for men, and price lower than 30.00 dollars',
      "Page: 'WebShop' [SEP] 'Instruction:' [SEP] 'i need a red cotton t-shirt for men, and price lower than 30.00 dollars' [SEP] 'Search'",
      'Available actions: search[<query>]',
    ]);
    expect(e.parse('<action>click[b09qqp3356]</action>')).toMatchObject({ valid: false });
    expect(e.parse('<action>search[]</action>')).toEqual({ valid: false, reason: 'empty search query' });
    const search = e.parse('<action>Search[Red Cotton T-Shirt Men]</action> then <action>click[x]</action>');
    expect(search).toEqual({
      valid: true,
      action: 'search[red cotton t-shirt men]',
      text: 'search[red cotton t-shirt men]',
    });
    const results = e.step(search);
    expect(results.observation.info.actions).toEqual([
      'click[back to search]',
      'click[next >]',
      'click[b09qqp3356]',
      'click[b07zx1yt2k]',
    ]);
    expect(e.parse('<action>search[more]</action>')).toEqual({
      valid: false,
      reason: 'this page has no search bar',
    });
    e.step(e.parse('<action>click[B09QQP3356]</action>'));
    e.step(e.parse('<action>click[red]</action>'));
    const bought = e.step(e.parse('<action>click[buy now]</action>'));
    expect(bought).toMatchObject({ done: true, reward: 10, outcome: { success: true, label: 'purchased' } });
    expect(bought.observation.info.purchaseScore).toBe(1);
    // The same goal again: a purchase scored 0.75 is not a success and earns nothing; the score is kept.
    e.reset(1);
    e.step(e.parse('<action>search[t-shirt]</action>'));
    e.step(e.parse('<action>click[b09qqp3356]</action>'));
    const partial = e.step(e.parse('<action>click[buy now]</action>'));
    expect(partial).toMatchObject({ done: true, reward: 0, outcome: { success: false, label: 'mismatch' } });
    expect(partial.observation.info.purchaseScore).toBe(0.75);
    closeRemoteEnvs(); // POST /close: AgentGym's server answers 404, which is fine
    expect(await remainingExchanges(server)).toBe(0);
  });

  it('names the field of a malformed answer', async () => {
    const server = await startTranscript('webshop-malformed');
    const e = episodeOf(server.url);
    expect(() => e.reset(0)).toThrow(/answered POST .*\/create with an unexpected shape/);
    expect(() => e.reset(0)).toThrow(/\/reset with an unexpected shape.*"observation"/);
    expect(() => e.reset(0)).toThrow(/available_actions.*unexpected shape at 'clickables'/);
    expect(await remainingExchanges(server)).toBe(0);
  });

  it('parses actions without a server: first <action> block, lower-cased; unknown clicks and verbs refused', () => {
    const state: WebShopState = {
      goal: 0,
      instruction: 'x',
      page: 'a [SEP] b',
      hasSearchBar: false,
      clickables: ['Buy Now', 'search'],
      actions: [],
      done: false,
      score: 0,
      purchaseScore: null,
    };
    expect(parseWebShopAction('<ACTION>CLICK[buy now]</ACTION>', state)).toMatchObject({
      valid: true,
      action: 'click[buy now]',
    });
    expect(parseWebShopAction('<action>click[search]</action>', state).valid).toBe(false);
    expect(parseWebShopAction('<action>buy[it]</action>', state).valid).toBe(false);
    expect(parseWebShopAction('click[buy now]', state)).toEqual({
      valid: false,
      reason: 'no <action> tag found',
    });
    expect(renderWebShopPage(' a [SEP]  [SEP] b ')).toBe("'a' [SEP] 'b'");
  });
});
