import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MageError } from '@mage-rl/spec';
import { describe, expect, it } from 'vitest';
import { describeCode, describeMachine } from '../machine';
import { useTempDir } from '../testing/vitest';
import { runTraining } from './iterate-training';
import { nimLearner, nimTrainingOptions } from './nim-training.test-helper';
import { RUN_MACHINES_FORMAT, type RunMachinesV1, readRunMachines } from './run-machines';

const tmp = useTempDir('mage-machines-');
let dirs = 0;
const newDir = () => join(tmp.path, `run-${++dirs}`);

const RUNTIME = { 'onnxruntime-node': '1.30.0' };
const options = (runDir: string, iterations: number, resume = false) =>
  nimTrainingOptions(nimLearner(), {
    iterations,
    runDir,
    checkpoints: { every: 1 },
    runtime: RUNTIME,
    ...(resume ? { resume: true } : {}),
  });

const readMachines = async (runDir: string): Promise<RunMachinesV1> =>
  JSON.parse(await readFile(join(runDir, 'machine.json'), 'utf8')) as RunMachinesV1;

/** A description of a machine this test does not run on. */
const OTHER_MACHINE = {
  cpu: 'Other CPU',
  cores: 64,
  memoryGiB: 512,
  simd: ['avx512f'],
  platform: 'linux-x64',
  node: 'v0.0.0',
};

describe("a run directory's machine.json", () => {
  it('a fresh run writes one process: iteration 0, its start time and this machine with the runtime', async () => {
    const runDir = newDir();
    const before = Date.now();
    await runTraining(options(runDir, 2));
    const record = await readMachines(runDir);
    expect(record.format).toBe(RUN_MACHINES_FORMAT);
    expect(record.processes).toHaveLength(1);
    const [process0] = record.processes;
    expect(process0?.startIteration).toBe(0);
    expect(Date.parse(process0?.started ?? '')).toBeGreaterThanOrEqual(before - 1000);
    expect(process0?.machine).toEqual(describeMachine({ runtime: RUNTIME }));
    // The code it ran: by default the checkout core runs from, with core's version.
    expect(process0?.code).toEqual(describeCode());
    expect(process0?.code?.packages['@mage-rl/core']).toMatch(/^\d+\.\d+\.\d+/);
    expect(await readRunMachines(runDir)).toEqual(record);
    // Not part of the run's configuration record, which a resume compares path by path.
    expect(await readFile(join(runDir, 'config.json'), 'utf8')).not.toMatch(/"(machine|cpu|simd)"/);
  });

  it('a resume appends its process with the iteration it starts at; one with nothing to train adds none', async () => {
    const runDir = newDir();
    await runTraining(options(runDir, 2));
    // The first process ran on another machine: the resume on this one is allowed and recorded.
    const first = await readMachines(runDir);
    await writeFile(
      join(runDir, 'machine.json'),
      JSON.stringify({ ...first, processes: [{ ...first.processes[0], machine: OTHER_MACHINE }] }),
    );
    await runTraining(options(runDir, 4, true));
    const record = await readMachines(runDir);
    expect(record.processes.map((p) => p.startIteration)).toEqual([0, 2]);
    // Each names the count it trained towards: the resume extended the run from 2 to 4 iterations.
    expect(record.processes.map((p) => p.iterations)).toEqual([2, 4]);
    expect(record.processes.map((p) => p.machine.cpu)).toEqual(['Other CPU', describeMachine().cpu]);
    await runTraining(options(runDir, 4, true));
    expect(await readMachines(runDir)).toEqual(record);
  });

  it("records the caller's code, so a run resumed at another commit names both with their iterations", async () => {
    const runDir = newDir();
    const code = (commit: string) => ({ commit, dirty: false, packages: { '@mage-rl/trainer': '9.9.9' } });
    await runTraining({ ...options(runDir, 2), code: code('a'.repeat(40)) });
    await runTraining({ ...options(runDir, 4, true), code: code('b'.repeat(40)) });
    const record = await readMachines(runDir);
    expect(record.processes.map((p) => [p.startIteration, p.code?.commit])).toEqual([
      [0, 'a'.repeat(40)],
      [2, 'b'.repeat(40)],
    ]);
    expect(record.processes[1]?.code).toEqual(code('b'.repeat(40)));
    // A machine.json written before the field existed still reads.
    const old = { ...record, processes: record.processes.map(({ code: _, ...p }) => p) };
    await writeFile(join(runDir, 'machine.json'), JSON.stringify(old));
    expect((await readRunMachines(runDir))?.processes.map((p) => p.code)).toEqual([undefined, undefined]);
  });

  it('a resume drops the processes that started at or after its start (nothing of theirs is left)', async () => {
    const runDir = newDir();
    await runTraining(options(runDir, 2));
    const first = await readMachines(runDir);
    const ghost = { startIteration: 3, started: '2026-01-01T00:00:00.000Z', machine: OTHER_MACHINE };
    await writeFile(
      join(runDir, 'machine.json'),
      JSON.stringify({ ...first, processes: [...first.processes, ghost] }),
    );
    await runTraining(options(runDir, 3, true));
    expect((await readMachines(runDir)).processes.map((p) => p.startIteration)).toEqual([0, 2]);
  });

  it('a missing or damaged machine.json does not stop a resume: it starts a new list', async () => {
    for (const damage of ['{"format": "mage-rl/run-mach', '[1, 2]', null]) {
      const runDir = newDir();
      await runTraining(options(runDir, 2));
      if (damage === null) await writeFile(join(runDir, 'machine.json'), '');
      else await writeFile(join(runDir, 'machine.json'), damage);
      const error = await readRunMachines(runDir).catch((e: unknown) => e);
      expect(MageError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain('machine.json');
      await runTraining(options(runDir, 3, true));
      const record = await readMachines(runDir);
      expect(record.processes.map((p) => p.startIteration)).toEqual([2]);
    }
  });

  it('a fresh run into a directory holding only a stale machine.json replaces it', async () => {
    const stale = newDir();
    await runTraining(options(stale, 1));
    // Only machine.json is left of the old run: a fresh run starts and writes its own.
    for (const name of ['config.json', 'metrics.jsonl', 'checkpoints', 'episodes']) {
      await rm(join(stale, name), { recursive: true, force: true });
    }
    await writeFile(
      join(stale, 'machine.json'),
      JSON.stringify({
        format: RUN_MACHINES_FORMAT,
        processes: [{ startIteration: 0, started: '2026-01-01T00:00:00.000Z', machine: OTHER_MACHINE }],
      }),
    );
    await runTraining(options(stale, 1));
    const record = await readMachines(stale);
    expect(record.processes).toHaveLength(1);
    expect(record.processes[0]?.machine.cpu).toBe(describeMachine().cpu);
    expect(await readRunMachines(newDir())).toBeNull();
  });
});
