import { createHash } from 'node:crypto';
import type { EnvDefinitionV1 } from '@mage-rl/core';
import { describe, expect, it } from 'vitest';
import { envDefinition as higherLowerEnvDefinition } from '../../../../examples/custom-env/src/index.js';
import { FIRST_PARTY_ENV_DEFINITIONS } from '../environments/registry';
import { BASE_VOCABULARY_ENV_IDS, compactBaseVocabulary } from './vocabulary';

const definition = (id: string): EnvDefinitionV1 => {
  const found = FIRST_PARTY_ENV_DEFINITIONS.find((d) => d.id === id);
  if (!found) throw new Error(`no first-party env ${id}`);
  return found;
};

/** The size and a short hash of the base vocabulary of a warm start of `envs` (its ids follow the words). */
function fingerprint(envs: readonly EnvDefinitionV1[]): string {
  const words = compactBaseVocabulary(envs);
  return `${words.length} ${createHash('sha256').update(words.join('\n')).digest('hex').slice(0, 16)}`;
}

/**
 * The vocabulary the envs that shipped before Rock-Paper-Scissors had: every committed result was trained
 * from warm starts with these tokenizers, so a change here makes them irreproducible from a fresh clone.
 */
const BEFORE_RPS = '237 0789ff232e360b83';

describe('the base vocabulary of a warm start', () => {
  it.each([
    [[]],
    [['tictactoe']],
    [['kuhn-poker']],
    [['sokoban']],
    [['treasure']],
    [['doors']],
    [['alfworld']],
    [['doors', 'treasure']],
    [['tictactoe', 'kuhn-poker']],
  ])('of %j is the one it had before Rock-Paper-Scissors was added', (ids) => {
    expect(fingerprint(ids.map(definition))).toBe(BEFORE_RPS);
  });

  it("of an env package's env (the example's Higher-Lower) adds its words, as before", () => {
    expect(fingerprint([higherLowerEnvDefinition])).toBe('241 68a6ddc44e99ffd2');
  });

  it('of Rock-Paper-Scissors adds its words and bot ids on top, and only there', () => {
    const rps = definition('rps');
    expect(fingerprint([rps])).toBe('273 0092c378d3076b4e');
    expect(fingerprint([definition('tictactoe'), rps])).toBe('273 0092c378d3076b4e');
    expect(compactBaseVocabulary([rps])).toEqual(
      expect.arrayContaining(['rock', 'throws', 'win-stay-paper']),
    );
    const tictactoe = compactBaseVocabulary([definition('tictactoe')]);
    for (const w of ['rock', 'throws', 'win-stay-paper']) expect(tictactoe).not.toContain(w);
  });

  it('names first-party envs only, and not the envs added after it was fixed', () => {
    const firstParty = FIRST_PARTY_ENV_DEFINITIONS.map((d) => d.id);
    for (const id of BASE_VOCABULARY_ENV_IDS) expect(firstParty).toContain(id);
    expect(BASE_VOCABULARY_ENV_IDS).not.toContain('rps');
  });
});
