import { ConfigError, runMetaEpisodes } from '@mage-rl/core';
import { createMemory } from '@mage-rl/reflection';
import { describe, expect, it } from 'vitest';
import { envDefinition } from './definition.js';

describe('higher-lower env definition', () => {
  it('builds the env and refuses unknown options', () => {
    expect(envDefinition.create({ max: 8 }).options).toEqual({ max: 8, maxTurns: 5 });
    expect(() => envDefinition.create({ boxes: 3 })).toThrow(ConfigError);
  });

  it('its teacher plays guesses the hints allow and writes factual notes after failed attempts', async () => {
    const env = envDefinition.create({});
    const batch = await runMetaEpisodes({
      env,
      policy: envDefinition.warmStart?.teacher(env, { style: 'compact' }) as never,
      memory: createMemory({ mode: 'reflection' }),
      groups: 8,
      groupSize: 2,
      attempts: 3,
      style: 'compact',
      seed: 1,
    });
    const play = batch.rows.filter((r) => r.phase === 'play');
    const reflect = batch.rows.filter((r) => r.phase === 'reflect');
    expect(play.every((r) => r.valid)).toBe(true);
    expect(reflect.length).toBeGreaterThan(0);
    expect(
      reflect.every((r) => /^<remark> attempt \d lost \. guess \d+ (higher|lower)/.test(r.responseText)),
    ).toBe(true);
    // Every word the teacher writes besides numbers is one of the definition's words or grammar.
    const known = new Set([...(envDefinition.warmStart?.words ?? []), '.', '<action>', '</action>']);
    const words = batch.rows.flatMap((r) =>
      r.responseText.split(/\s+|<\/?(?:action|remark)>/).filter(Boolean),
    );
    expect(words.filter((w) => !known.has(w) && !/^\d+$/.test(w))).toEqual([]);
  });
});
