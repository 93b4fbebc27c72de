/** Registers the env conformance suite as vitest tests: one test per check. */

import { describe, expect, it } from 'vitest';
import type { EnvV1 } from '../spec';
import { CONFORMANCE_CHECKS, type ConformanceOptions, checkEnvConformance } from './conformance';

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
