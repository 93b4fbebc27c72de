import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  codeLabel,
  describeCode,
  describeMachine,
  machineLabel,
  RUN_MACHINES_FORMAT,
  runTraining,
} from '@mage-rl/core';
import { createTabularLearner, EXAMPLE_MACHINE } from '@mage-rl/core/testing';
import { useTempDir } from '@mage-rl/core/testing/vitest';
import { resolveTrainConfig, trainingOptionsOf } from '@mage-rl/recipes';
import { describe, expect, it } from 'vitest';
import { codeLines, machineLines, readRun, writeReport } from './run-report';

const tmp = useTempDir('mage-run-report-');
let dirs = 0;

const A = EXAMPLE_MACHINE;
const B = { ...A, cpu: 'Intel(R) Xeon(R) Platinum 8481C', simd: [...A.simd, 'avx512f', 'amx_tile'] };
const LABEL_A =
  'AMD EPYC 7763 64-Core Processor, 2 cores, 8 GiB, SIMD sse4_2 avx avx2 fma, linux-x64, Node v22.12.0, onnxruntime-node 1.30.0';
const LABEL_B =
  'Intel(R) Xeon(R) Platinum 8481C, 2 cores, 8 GiB, SIMD sse4_2 avx avx2 fma avx512f amx_tile, linux-x64, Node v22.12.0, onnxruntime-node 1.30.0';

/** A run directory with an empty metrics.jsonl and, unless null, this machine.json text. */
async function runDir(machineJson: string | null, name = `run-${++dirs}`): Promise<string> {
  const dir = join(tmp.path, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'metrics.jsonl'), '');
  if (machineJson !== null) await writeFile(join(dir, 'machine.json'), machineJson);
  return dir;
}

const machinesJson = (...processes: [number, object, object?][]) =>
  JSON.stringify({
    format: RUN_MACHINES_FORMAT,
    processes: processes.map(([startIteration, machine, code]) => ({
      startIteration,
      started: '2026-01-01T00:00:00.000Z',
      machine,
      ...(code === undefined ? {} : { code }),
    })),
  });

describe("the run report's machine line", () => {
  it('names the machine of a run trained on one (resumes on the same machine included)', async () => {
    const run = await readRun(await runDir(machinesJson([0, A], [4, A])));
    expect(machineLines([run], tmp.path)).toEqual([`Machine: ${LABEL_A}.`, '']);
  });

  it('says a run was trained on several machines and names them, from the iteration each took over', async () => {
    const run = await readRun(await runDir(machinesJson([0, A], [3, A], [5, B], [9, A])));
    expect(machineLines([run], tmp.path)).toEqual([
      `Machines: trained on 2 machines — from iteration 0: ${LABEL_A}; from iteration 5: ${LABEL_B}; from iteration 9: ${LABEL_A}.`,
      '',
    ]);
  });

  it('says nothing for a run without machine.json, and that a damaged one does not read', async () => {
    const old = await readRun(await runDir(null, 'old'));
    expect(old.machines).toBeNull();
    expect(machineLines([old], tmp.path)).toEqual([]);
    const damaged = await readRun(await runDir('{"format": "mage-rl/run-mach', 'damaged'));
    expect(damaged.machines).toBe('unreadable');
    const one = await readRun(await runDir(machinesJson([0, B]), 'one'));
    expect(machineLines([old, damaged, one], tmp.path)).toEqual([
      'Machine of `damaged`: not known (its machine.json does not read).',
      `Machine of \`one\`: ${LABEL_B}.`,
      '',
    ]);
  });

  it("a trained run's report.md names the machine it trained on", async () => {
    const dir = join(tmp.path, 'trained');
    const candidates = ['<action> PASS </action>', '<action> BET </action>', '<remark> note </remark>'];
    const config = resolveTrainConfig({}, { preset: 'smoke', method: 'grpo', env: 'kuhn-poker' });
    await runTraining({
      ...trainingOptionsOf(config, {
        learner: createTabularLearner({ candidates, seed: 1 }),
        reference: createTabularLearner({ candidates, seed: 1 }),
        runDir: dir,
      }),
      runtime: { tabular: 'test' },
    });
    const { markdown } = await writeReport([await readRun(dir)], dir);
    const label = machineLabel(describeMachine({ runtime: { tabular: 'test' } }));
    const text = await readFile(markdown, 'utf8');
    expect(text).toContain(`\n\nMachine: ${label}.\n\n`);
    // And the code: this checkout's commit (core's default description: the loop was given none).
    expect(text).toContain(`\n\nCode: ${codeLabel(describeCode())}.\n\n`);
  }, 60_000);
});

describe("the run report's code line", () => {
  const at = (commit: string, dirty = false) => ({
    commit,
    dirty,
    packages: { '@mage-rl/trainer': '0.1.0' },
  });
  const C1 = 'c1'.repeat(20);
  const C2 = 'c2'.repeat(20);

  it('names the commit a run was trained at, each stretch of a run resumed at others, and old runs as unknown', async () => {
    const one = await readRun(await runDir(machinesJson([0, A, at(C1)], [4, B, at(C1)])));
    expect(codeLines([one], tmp.path)).toEqual(['Code: commit c1c1c1c.', '']);
    const resumed = await readRun(await runDir(machinesJson([0, A, at(C1)], [3, A, at(C2, true)])));
    expect(codeLines([resumed], tmp.path)).toEqual([
      'Code: trained by 2 versions — from iteration 0: commit c1c1c1c; from iteration 3: commit c2c2c2c (dirty).',
      '',
    ]);
    const installed = {
      commit: null,
      dirty: null,
      noCommit: 'installed package',
      packages: { '@mage-rl/core': '0.2.0' },
    };
    const npm = await readRun(await runDir(machinesJson([0, A, installed])));
    expect(codeLines([npm], tmp.path)).toEqual([
      'Code: no commit (installed package; @mage-rl/core 0.2.0).',
      '',
    ]);
    const before = await readRun(await runDir(machinesJson([0, A])));
    const none = await readRun(await runDir(null));
    expect(codeLines([before], tmp.path)).toEqual(['Code: commit unknown.', '']);
    expect(codeLines([none], tmp.path)).toEqual(['Code: commit unknown.', '']);
  });

  it('says when the runs of one report ran different code', async () => {
    const a = await readRun(await runDir(machinesJson([0, A, at(C1)]), 'code-a'));
    const b = await readRun(await runDir(machinesJson([0, A, at(C2)]), 'code-b'));
    const c = await readRun(await runDir(machinesJson([0, A, at(C1)]), 'code-c'));
    expect(codeLines([a, c], tmp.path)).toEqual([
      'Code of `code-a`: commit c1c1c1c.',
      'Code of `code-c`: commit c1c1c1c.',
      '',
    ]);
    expect(codeLines([a, b], tmp.path)).toEqual([
      'Code of `code-a`: commit c1c1c1c.',
      'Code of `code-b`: commit c2c2c2c.',
      '**The runs ran different code (or code not recorded): their numbers are not comparable.**',
      '',
    ]);
  });
});
