/** Vitest helpers: the env conformance suite as tests, and a temporary directory per test block. */

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EnvV1 } from '@mage-rl/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE_CHECKS, type ConformanceOptions, checkEnvConformance } from './conformance';

/** Registers the env conformance suite as vitest tests: one test per check. */
export function describeEnvConformance<S, A>(
  name: string,
  makeEnv: () => EnvV1<S, A>,
  options: ConformanceOptions<S, A> = {},
): void {
  describe(`env conformance: ${name}`, () => {
    let results: ReturnType<typeof checkEnvConformance> | undefined;
    const get = () => {
      results ??= checkEnvConformance(makeEnv(), options);
      return results;
    };
    for (const check of CONFORMANCE_CHECKS) {
      it(check, () => {
        const result = get().find((r) => r.check === check);
        expect(result?.message).toBe('ok');
      });
    }
  });
}

/**
 * A temporary directory for the tests of the enclosing `describe` block (or file): created before them,
 * removed after them. `path` is valid inside the tests.
 */
export function useTempDir(prefix: string): { readonly path: string } {
  let dir: string | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
  return {
    get path(): string {
      if (dir === undefined)
        throw new Error(`useTempDir('${prefix}'): the directory exists only inside tests.`);
      return dir;
    },
  };
}
