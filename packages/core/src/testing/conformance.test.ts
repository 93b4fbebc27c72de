import type { EnvEpisodeV1, EnvV1, ParsedAction } from '@mage-rl/spec';
import { ConformanceError } from '@mage-rl/spec';
import { describe, expect, it } from 'vitest';
import { assertEnvConformance, type ConformanceCheckName, checkEnvConformance } from './conformance';
import { createNimEnv, type NimAction, type NimState } from './nim';
import { describeEnvConformance } from './vitest';

type Episode = EnvEpisodeV1<NimState, NimAction>;
type Nim = EnvV1<NimState, NimAction>;

/** Wrap Nim's episodes, overriding some methods to break one contract. */
function broken(patch: (inner: Episode) => Partial<Episode>): Nim {
  const env = createNimEnv();
  return {
    ...env,
    createEpisode(task) {
      const inner = env.createEpisode(task);
      const overrides = patch(inner);
      return new Proxy(inner, {
        get(target, prop, receiver) {
          if (prop in overrides) return overrides[prop as keyof Episode];
          const value = Reflect.get(target, prop, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    },
  };
}

let globalCounter = 0;
const BROKEN: Record<string, { env: Nim; fails: ConformanceCheckName }> = {
  'step throws on invalid actions': {
    env: broken((inner) => ({
      step: (a: ParsedAction<NimAction>) => {
        if (!a.valid) throw new Error('boom');
        return inner.step(a);
      },
    })),
    fails: 'invalid-actions',
  },
  'invalid actions change the state': {
    env: broken((inner) => ({
      step: (a: ParsedAction<NimAction>) => inner.step(a.valid ? a : { valid: true, action: 1, text: '1' }),
    })),
    fails: 'invalid-actions',
  },
  'parser accepts garbage': {
    env: broken(() => ({ parse: () => ({ valid: true, action: 1, text: '1' }) })),
    fails: 'invalid-actions',
  },
  'non-deterministic observations': {
    env: broken((inner) => ({
      reset: (k: number) => ({ ...inner.reset(k), info: { nonce: globalCounter++ } }),
    })),
    fails: 'determinism',
  },
  'restart does not restore the initial state': {
    env: broken((inner) => ({
      reset: (k: number) => {
        const obs = inner.reset(k);
        return k === 0 ? obs : inner.step({ valid: true, action: 1, text: '1' }).observation;
      },
    })),
    fails: 'restart-identity',
  },
  'no turn limit': {
    env: broken((inner) => ({
      get done() {
        return inner.state.winner !== null;
      },
    })),
    fails: 'turn-limit',
  },
  'anchor holds history': {
    env: broken((inner) => ({
      step: (a: ParsedAction<NimAction>) => {
        const s = inner.step(a);
        return { ...s, observation: { ...s.observation, anchor: `${s.observation.anchor}#${inner.turn}` } };
      },
    })),
    fails: 'stable-anchors',
  },
  'observations are not JSON-safe': {
    env: broken((inner) => ({
      step: (a: ParsedAction<NimAction>) => ({ ...inner.step(a), reward: Number.NaN }),
    })),
    fails: 'json-safe',
  },
  'reveal during the attempt': {
    env: broken(() => ({ reveal: () => 'showdown' })),
    fails: 'json-safe',
  },
  'non-deterministic reveal': {
    env: broken((inner) => ({ reveal: () => (inner.done ? `nonce ${globalCounter++}` : undefined) })),
    fails: 'determinism',
  },
};

describeEnvConformance('nim (reference env)', () => createNimEnv());

describe('the conformance suite catches broken envs', () => {
  for (const [name, { env, fails }] of Object.entries(BROKEN)) {
    it(name, () => {
      const results = checkEnvConformance(env);
      const failed = results.filter((r) => !r.ok).map((r) => r.check);
      expect(failed).toContain(fails);
      expect(() => assertEnvConformance(env)).toThrow(ConformanceError);
    });
  }

  it('passes the reference env on every check', () => {
    expect(checkEnvConformance(createNimEnv()).every((r) => r.ok)).toBe(true);
  });
});
