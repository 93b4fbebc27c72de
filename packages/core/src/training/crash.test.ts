/**
 * Issue 7 item 7: a training process killed with SIGKILL at random moments and resumed each time never
 * leaves a corrupt checkpoint, and finishes with exactly the metrics of an uninterrupted run.
 */

import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pathExists } from '../io';
import { createRng } from '../rng';
import { runTraining } from './iterate-training';
import { crashRunOptions, nimLearner, withBallast } from './nim-training.test-helper';
import { listCheckpoints, readCheckpointState } from './run-dir';

const here = dirname(fileURLToPath(import.meta.url));
const script = join(here, 'crash-child.test-helper.ts');
const repoRoot = resolve(here, '../../../..');
const ITERATIONS = 24;

interface ChildResult {
  readonly killed: boolean;
  readonly code: number | null;
  readonly lines: Record<string, unknown>[];
  readonly stderr: string;
}

/** How a round ends: killed some time after spawn, or after the n-th event line following run-start. */
type KillPlan =
  | { readonly kind: 'after-spawn'; readonly ms: number }
  | { readonly kind: 'after-line'; readonly pick: (startIteration: number) => number; readonly ms: number }
  | { readonly kind: 'never' };

function runChild(runDir: string, plan: KillPlan): Promise<ChildResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions=@mage-rl/source', script, runDir],
      {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const lines: Record<string, unknown>[] = [];
    let stderr = '';
    let buffer = '';
    let timer: NodeJS.Timeout | undefined;
    let killAtLine = Number.POSITIVE_INFINITY;
    const arm = (ms: number) => {
      if (timer === undefined) timer = setTimeout(() => child.kill('SIGKILL'), ms);
    };
    if (plan.kind === 'after-spawn') arm(plan.ms);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      const parts = buffer.split('\n');
      buffer = parts.pop() ?? '';
      for (const part of parts) {
        const line = JSON.parse(part) as Record<string, unknown>;
        lines.push(line);
        if (line.type === 'run-start' && plan.kind === 'after-line') {
          killAtLine = lines.length + plan.pick(line.startIteration as number);
        }
        if (lines.length >= killAtLine && plan.kind === 'after-line') arm(plan.ms);
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolvePromise({ killed: signal === 'SIGKILL', code, lines, stderr });
    });
  });
}

/** Every checkpoint directory present loads cleanly, and latest.json names one of them. */
async function checkCheckpoints(runDir: string, pointed: Set<string>): Promise<void> {
  const checkpoints = join(runDir, 'checkpoints');
  const latest = join(checkpoints, 'latest.json');
  if (await pathExists(latest)) {
    const pointer = JSON.parse(await readFile(latest, 'utf8')) as { dir: string; iteration: number };
    pointed.add(pointer.dir);
    expect(await pathExists(join(checkpoints, pointer.dir))).toBe(true);
  }
  for (const { name, iteration } of await listCheckpoints(runDir)) {
    const dir = join(checkpoints, name);
    const state = await readCheckpointState(dir);
    expect(state.iteration).toBe(iteration);
    await withBallast(nimLearner()).load(dir);
  }
}

function withoutTiming(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const { timing: _timing, ...rest } = JSON.parse(l) as Record<string, unknown>;
      return JSON.stringify(rest);
    });
}

describe('crash safety (SIGKILL at random moments, then resume)', () => {
  it('never corrupts a checkpoint and reproduces the uninterrupted run', { timeout: 60_000 }, async () => {
    const reference = await mkdtemp(join(tmpdir(), 'mage-crash-ref-'));
    await runTraining(crashRunOptions(reference, withBallast(nimLearner())));

    const runDir = await mkdtemp(join(tmpdir(), 'mage-crash-'));
    const rng = createRng('crash-test');
    const pointed = new Set<string>();
    const starts: number[] = [];
    let kills = 0;
    let finished = false;
    // Round 0 dies during start-up; six rounds die a few ms after a seeded event line (about five
    // lines per iteration, so kills spread over the remaining run and often land inside a checkpoint
    // write); the last round runs to the end.
    const plans: KillPlan[] = [
      { kind: 'after-spawn', ms: 150 },
      ...Array.from(
        { length: 6 },
        (): KillPlan => ({
          kind: 'after-line',
          pick: (start) => rng.int(Math.max(1, 5 * (ITERATIONS - start))),
          ms: rng.int(8),
        }),
      ),
      { kind: 'never' },
    ];
    for (const plan of plans) {
      const result = await runChild(runDir, plan);
      const start = result.lines.find((l) => l.type === 'run-start');
      if (start) starts.push(start.startIteration as number);
      if (result.killed) {
        kills++;
      } else {
        expect(result.code, result.stderr).toBe(0);
        expect(result.lines.at(-1)?.type).toBe('run-end');
        finished = true;
      }
      await checkCheckpoints(runDir, pointed);
      if (finished) break;
    }
    expect(finished).toBe(true);
    expect(kills).toBeGreaterThanOrEqual(1);
    expect(pointed.has('iter-000023')).toBe(true);
    // Starting iterations never go backwards: every resume continued from a later-or-equal checkpoint.
    expect(starts).toEqual([...starts].sort((a, b) => a - b));

    expect(withoutTiming(await readFile(join(runDir, 'metrics.jsonl'), 'utf8'))).toEqual(
      withoutTiming(await readFile(join(reference, 'metrics.jsonl'), 'utf8')),
    );
    const final = (dir: string) =>
      readFile(join(dir, 'checkpoints', 'iter-000023', 'tabular-learner.json'), 'utf8');
    expect(await final(runDir)).toBe(await final(reference));
    // No temporary leftovers survive the last (clean) run.
    expect((await readdir(join(runDir, 'checkpoints'))).filter((n) => n.startsWith('.'))).toEqual([]);
  });
});
