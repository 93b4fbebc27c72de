import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { RUN_CONFIG_FORMAT } from './run-dir';
import { readRunRecord } from './run-record';

/**
 * Run directories as older versions wrote them (`mage-rl/run-config@1`, with their latest checkpoint's
 * pointer and state): a `mage train --preset smoke --env tictactoe` record from before the `learner` and
 * `memory` sections, and one from before `warmStartDir`, which kept the warm-start directory in `warmStart`.
 * The trainer's tests resume and load them too.
 */
const fixture = (name: string) =>
  fileURLToPath(new URL(`./__fixtures__/run-records/${name}`, import.meta.url));
const BEFORE_LEARNER = fixture('before-learner-section');
const WARM_START_STRING = fixture('warm-start-string');
const WARM_START = '/warm-starts/tictactoe-smoke';

const root = await mkdtemp(join(tmpdir(), 'mage-run-record-'));
afterAll(() => rm(root, { recursive: true, force: true }));

describe('the run record', () => {
  it('reads the config, method, env and warm start of a record written by an older version', async () => {
    const record = await readRunRecord(BEFORE_LEARNER);
    expect(record).toMatchObject({
      format: RUN_CONFIG_FORMAT,
      method: 'mage',
      env: 'tictactoe',
      warmStartDir: WARM_START,
    });
    expect(record.config).toMatchObject({ method: 'mage', preset: 'smoke', train: { iterations: 2 } });
    expect(record.config).not.toHaveProperty('warmStartDir');
    // A record that kept the warm-start directory in `warmStart` has it as its warm start, not as settings.
    const legacy = await readRunRecord(WARM_START_STRING);
    expect(legacy.warmStartDir).toBe(WARM_START);
    expect(legacy.config).not.toHaveProperty('warmStart');
  });

  it('reads fields it cannot use as absent, and refuses a file that is not a run record', async () => {
    const dir = join(root, 'odd');
    await mkdir(dir);
    const write = (value: unknown) => writeFile(join(dir, 'config.json'), JSON.stringify(value));
    await write({ format: RUN_CONFIG_FORMAT, extra: { method: 7, env: { id: null }, warmStartDir: ['x'] } });
    expect(await readRunRecord(dir)).toMatchObject({ method: null, env: null, warmStartDir: null });
    await write({ format: RUN_CONFIG_FORMAT, extra: null });
    expect(await readRunRecord(dir)).toEqual({
      format: RUN_CONFIG_FORMAT,
      config: null,
      method: null,
      env: null,
      warmStartDir: null,
    });
    await write({ extra: {} });
    await expect(readRunRecord(dir)).rejects.toThrow(/the run's configuration record/);
    // A missing or half-written file is refused the same way (the dashboard reads it again later).
    await writeFile(join(dir, 'config.json'), '{"format":"mage-rl/run-config@1","ext');
    await expect(readRunRecord(dir)).rejects.toThrow(/not valid JSON/);
    await expect(readRunRecord(join(root, 'none'))).rejects.toThrow(/does not exist/);
  });
});
