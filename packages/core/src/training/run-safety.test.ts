import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CheckpointError, ConfigError, MageError } from '@mage-rl/spec';
import { describe, expect, it } from 'vitest';
import type { TrainingEvent } from './events';
import { iterateTraining } from './iterate-training';
import { crashRunOptions, nimLearner, nimTrainingOptions } from './nim-training.test-helper';
import { checkResumeConfig, type RunConfigRecordV1, resumeDifferences } from './open-run';
import { latestCheckpoint } from './run-dir';
import { lockRunDir, RUN_LOCK_FILE } from './run-lock';

const here = dirname(fileURLToPath(import.meta.url));
const childScript = join(here, 'crash-child.test-helper.ts');
const repoRoot = resolve(here, '../../../..');

const tempDir = () => mkdtemp(join(tmpdir(), 'mage-safety-'));

async function collect(options: Parameters<typeof iterateTraining>[0]): Promise<TrainingEvent[]> {
  const events: TrainingEvent[] = [];
  for await (const e of iterateTraining(options)) events.push(e);
  return events;
}

const run = (runDir: string, extra: Parameters<typeof nimTrainingOptions>[1] = {}) =>
  nimTrainingOptions(nimLearner(), { iterations: 2, runDir, checkpoints: { every: 1 }, ...extra });

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('run directory lock', () => {
  it('refuses a second writer while another process trains, and takes over after that one is SIGKILLed', async () => {
    const runDir = await tempDir();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions=@mage-rl/source', childScript, runDir],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise((resolveExit) => child.on('exit', resolveExit));
    // Wait until the child has started its run (it holds the lock from then on).
    await new Promise<void>((resolveStart, reject) => {
      let buffer = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        buffer += chunk;
        if (buffer.includes('"type":"iteration-start"')) resolveStart();
      });
      child.on('exit', () => reject(new Error('the child ended before it started training')));
    });
    const error = await collect(crashRunOptions(runDir, nimLearner())).catch((e: unknown) => e);
    child.kill('SIGKILL');
    await exited;
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(
      new RegExp(`is in use by process ${child.pid} on .*two writers would mix.*kill ${child.pid}`),
    );
    // The killed child left its lock behind; it is stale and the resume takes it over.
    expect(await readFile(join(runDir, RUN_LOCK_FILE), 'utf8')).toContain(`"pid":${child.pid}`);
    const events = await collect(crashRunOptions(runDir, nimLearner()));
    expect(events.at(-1)).toMatchObject({ type: 'run-end', iterations: 24 });
    await expect(readFile(join(runDir, RUN_LOCK_FILE), 'utf8')).rejects.toThrow();
  }, 60_000);

  it('takes over the lock of a killed process on this host, refuses one of another host', async () => {
    const runDir = await tempDir();
    const lockPath = join(runDir, RUN_LOCK_FILE);
    const record = (pid: number, host: string) =>
      JSON.stringify({ pid, hostname: host, started: '2026-01-01T00:00:00.000Z' });
    await writeFile(lockPath, record(deadPid(), hostname()));
    const events = await collect(run(runDir));
    expect(events.at(-1)).toMatchObject({ type: 'run-end', iterations: 2 });

    await writeFile(lockPath, record(process.pid + 1, 'another-host'));
    const error = await lockRunDir(runDir).catch((e: unknown) => e);
    expect(MageError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(`delete '${lockPath}'`);
    await writeFile(lockPath, 'garbage');
    await expect(lockRunDir(runDir)).rejects.toThrow(/unreadable lock file/);
  });

  it('is taken once: a second lock in the same process is refused, the holder passes it to the loop', async () => {
    const runDir = await tempDir();
    const lock = await lockRunDir(runDir);
    await expect(lockRunDir(runDir)).rejects.toThrow(new RegExp(`in use by process ${process.pid}`));
    await expect(collect(run(runDir))).rejects.toThrow(/in use by process/);
    const events = await collect({ ...run(runDir), runLock: lock });
    expect(events.at(-1)).toMatchObject({ type: 'run-end', iterations: 2 });
    // The loop leaves the caller's lock alone; the caller releases it.
    expect(await readFile(lock.path, 'utf8')).toContain(`"pid":${process.pid}`);
    const other = await lockRunDir(await tempDir());
    await expect(collect({ ...run(runDir), resume: true, runLock: other })).rejects.toThrow(
      /is not the lock of runDir/,
    );
    await other.release();
    await lock.release();
    await expect(readFile(lock.path, 'utf8')).rejects.toThrow();
  });
});

describe('resume safety', () => {
  it('compares the caller record too: a changed meta-reward is refused before and inside the loop', async () => {
    const runDir = await tempDir();
    const config = {
      advantage: { metaReward: 'differential', estimator: 'gigpo' },
      train: { iterations: 2 },
    };
    await collect(run(runDir, { config, iterations: 1 }));
    const changed = { ...config, advantage: { metaReward: 'single', estimator: 'gigpo' } };
    await expect(checkResumeConfig(runDir, { extra: changed })).rejects.toThrow(
      /differs from its config\.json at advantage\.metaReward/,
    );
    await expect(collect({ ...run(runDir, { config: changed }), resume: true })).rejects.toThrow(
      /advantage\.metaReward/,
    );
  });

  it('lets the iteration count change on resume without rewriting config.json', async () => {
    const runDir = await tempDir();
    const config = { train: { iterations: 1 } };
    await collect(run(runDir, { config, iterations: 1 }));
    const before = await readFile(join(runDir, 'config.json'), 'utf8');
    // The caller's iteration count is safe only when the caller says so.
    await expect(
      collect({ ...run(runDir, { config: { train: { iterations: 2 } } }), resume: true }),
    ).rejects.toThrow(/differs from its config\.json at train\.iterations/);
    const more = await collect({
      ...run(runDir, { config: { train: { iterations: 2 } } }),
      resume: true,
      resumeSafePaths: ['train.iterations'],
    });
    expect(more[0]).toMatchObject({ type: 'run-start', startIteration: 1, iterations: 2 });
    expect(await readFile(join(runDir, 'config.json'), 'utf8')).toBe(before);
  });

  it('lets the evaluation period change with the iteration count (evaluating only at the end)', () => {
    // Only the parts the comparison reads: a record's training part, cut down.
    const record = (iterations: number, every: number, episodes: number) =>
      ({
        training: { iterations, evaluation: { every, episodes } },
      }) as unknown as Partial<RunConfigRecordV1>;
    const saved = record(200, 200, 16);
    expect(resumeDifferences(saved, record(300, 300, 16))).toEqual([]);
    expect(resumeDifferences(saved, record(300, 300, 32))).toEqual(['training.evaluation.episodes']);
  });

  it('lets the paths the caller names change or be missing from an older record, nothing beside them', () => {
    const safe = ['memory'];
    const saved = { extra: { ppo: { lr: 1e-4 }, memory: { budget: '6GiB' } } };
    const bigger = { extra: { ppo: { lr: 1e-4 }, memory: { budget: '16GiB' } } };
    expect(resumeDifferences(saved, bigger, safe)).toEqual([]);
    expect(resumeDifferences(saved, bigger)).toEqual(['memory.budget']);
    const older = { extra: { ppo: { lr: 1e-4 } } };
    expect(
      resumeDifferences(older, { extra: { ppo: { lr: 1e-4 }, memory: { budget: '6GiB' } } }, safe),
    ).toEqual([]);
    expect(resumeDifferences(older, { extra: { ppo: { lr: 3e-4 }, memoryKind: 'x' } }, safe)).toEqual([
      'ppo.lr',
      'memoryKind',
    ]);
  });

  it('does not overwrite files it did not write: unrelated config.json or report.md', async () => {
    for (const name of ['config.json', 'report.md']) {
      const runDir = await tempDir();
      await writeFile(join(runDir, name), 'mine\n');
      await expect(collect(run(runDir))).rejects.toThrow(
        new RegExp(`already holds ${name.replace('.', '\\.')}`),
      );
      expect(await readFile(join(runDir, name), 'utf8')).toBe('mine\n');
    }
    const runDir = await tempDir();
    await writeFile(join(runDir, 'config.json'), '{"lr": 3}\n');
    const error = await collect({ ...run(runDir), resume: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckpointError);
    expect((error as Error).message).toMatch(
      /config\.json' \(the run's configuration record\).*not the record/,
    );
    expect(await readFile(join(runDir, 'config.json'), 'utf8')).toBe('{"lr": 3}\n');
  });

  it('refuses a second fresh run naming the --resume flag, not a library word', async () => {
    const runDir = await tempDir();
    await collect(run(runDir));
    const error = await collect(run(runDir)).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/continue that run with --resume/);
    expect((error as Error).message).not.toMatch(/^[^`]*pass resume: true/);
  });

  it('refuses to wipe the metrics of a run whose checkpoints are gone', async () => {
    const runDir = await tempDir();
    await collect(run(runDir));
    await rm(join(runDir, 'checkpoints'), { recursive: true });
    const metrics = await readFile(join(runDir, 'metrics.jsonl'), 'utf8');
    await expect(collect({ ...run(runDir), resume: true })).rejects.toThrow(/no checkpoint to continue from/);
    expect(await readFile(join(runDir, 'metrics.jsonl'), 'utf8')).toBe(metrics);
  });
});

describe('latest.json', () => {
  it('a damaged pointer falls back to the newest complete checkpoint; alone it is an error naming the file', async () => {
    const runDir = await tempDir();
    await collect(run(runDir));
    const latest = join(runDir, 'checkpoints', 'latest.json');
    for (const bad of ['null', '{"iteration":1,"dir":"../../../etc"}', '{"iteration":', '[]']) {
      await writeFile(latest, bad);
      expect((await latestCheckpoint(runDir))?.iteration).toBe(1);
    }
    const lone = await tempDir();
    await mkdir(join(lone, 'checkpoints'));
    await writeFile(join(lone, 'checkpoints', 'latest.json'), 'null');
    const error = await latestCheckpoint(lone).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckpointError);
    expect((error as Error).message).toContain('latest.json');
    expect((error as Error).message).toMatch(/delete it/);
  });

  it('never follows a pointer outside the run directory', async () => {
    const runDir = await tempDir();
    const outside = await tempDir();
    await mkdir(join(runDir, 'checkpoints'));
    await writeFile(
      join(runDir, 'checkpoints', 'latest.json'),
      JSON.stringify({ iteration: 5, dir: `../../${outside}` }),
    );
    await expect(latestCheckpoint(runDir)).rejects.toThrow(/a checkpoint directory name/);
  });
});
