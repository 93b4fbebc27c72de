import { spawn, spawnSync } from 'node:child_process';
/** A tiny benchmark harness: time a function for a minimum duration and report a rate. */

export interface BenchResult {
  /** What was measured, e.g. `mcts simulations (ours)`. */
  readonly name: string;
  /** Measured rate. */
  readonly value: number;
  /** Unit of `value`, e.g. `sims/s`. */
  readonly unit: string;
  /** Optional target for this machine, compared in the printed table. */
  readonly target?: { readonly value: number; readonly comparison: '>=' | '<=' };
  readonly note?: string;
}

export interface BenchSection {
  readonly title: string;
  run(): Promise<BenchResult[]>;
}

/**
 * Calls `fn` repeatedly for at least `minMs` (after `warmupMs` of warm-up); `fn` returns how many units
 * of work it did. Returns units per second.
 */
export function measureRate(fn: () => number, options: { minMs?: number; warmupMs?: number } = {}): number {
  const minMs = options.minMs ?? 1500;
  const warmupMs = options.warmupMs ?? 300;
  const warmEnd = performance.now() + warmupMs;
  while (performance.now() < warmEnd) fn();
  let units = 0;
  const start = performance.now();
  let now = start;
  while (now - start < minMs) {
    units += fn();
    now = performance.now();
  }
  return (units * 1000) / (now - start);
}

/** Async variant of `measureRate`. */
export async function measureRateAsync(
  fn: () => Promise<number>,
  options: { minMs?: number; warmupMs?: number } = {},
): Promise<number> {
  const minMs = options.minMs ?? 1500;
  const warmupMs = options.warmupMs ?? 300;
  const warmEnd = performance.now() + warmupMs;
  while (performance.now() < warmEnd) await fn();
  let units = 0;
  const start = performance.now();
  let now = start;
  while (now - start < minMs) {
    units += await fn();
    now = performance.now();
  }
  return (units * 1000) / (now - start);
}

export function formatRate(value: number): string {
  if (value >= 1e6) return `${(value / 1e6).toFixed(2)} M`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(1)} k`;
  if (value !== 0 && Math.abs(value) < 0.01) return value.toExponential(1);
  return value.toFixed(value >= 100 ? 0 : 2);
}

/**
 * Runs `script` in a child process with this process's Node flags (the tsx loader and the source
 * condition), so that its peak RSS is its own, and parses the last line it prints as JSON.
 */
export function runJsonChild<T>(script: string, args: readonly string[]): Promise<T> {
  return runJsonCommand(process.execPath, [...process.execArgv, script, ...args]);
}

/** Runs `command` (stderr shown, stdout collected) and parses the last line it prints as JSON. */
export function runJsonCommand<T>(command: string, args: readonly string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0) reject(new Error(`${command} ${args.join(' ')} exited with ${code}: ${out}`));
      else resolve(JSON.parse(line) as T);
    });
  });
}

/** A Python that imports torch: `MAGE_BENCH_PYTHON`, else `python3`, else Debian's `/usr/bin/python3`. */
export function findTorchPython(): string | undefined {
  const candidates = [process.env.MAGE_BENCH_PYTHON, 'python3', '/usr/bin/python3'].filter(
    (c): c is string => c !== undefined && c !== '',
  );
  // `torch.tensor` rather than the import alone: a directory named `torch` in the working directory
  // imports as an empty namespace package.
  const check = ['-c', 'import torch; torch.tensor([1.0])'];
  return candidates.find((c) => spawnSync(c, check, { stdio: 'ignore' }).status === 0);
}
