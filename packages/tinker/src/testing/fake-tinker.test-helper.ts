/** The fake services and temporary directories of a test file, closed and removed after each test. */

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { type FakeTinker, type FakeTinkerOptions, startFakeTinker } from './fake-service';

export interface FakeTinkerFixture {
  /** A fake service for the running test. */
  start(options?: FakeTinkerOptions): Promise<FakeTinker>;
  /** A temporary directory for the running test. */
  tempDir(prefix: string): Promise<string>;
}

/** Registers an `afterEach` that closes the services and removes the directories the test made. */
export function useFakeTinker(): FakeTinkerFixture {
  const fakes: FakeTinker[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(fakes.splice(0).map((f) => f.close()));
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });
  return {
    async start(options = {}) {
      const fake = await startFakeTinker(options);
      fakes.push(fake);
      return fake;
    },
    async tempDir(prefix) {
      const dir = await mkdtemp(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
  };
}
