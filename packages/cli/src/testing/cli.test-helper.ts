import { createMageTiny, saveMageTiny } from '@mage-rl/learner';
import { buildMageTinyTokenizer } from '@mage-rl/trainer/internals';
import { expect } from 'vitest';
import type { Io } from '../program/error-boundary';
import { runCli } from '../program/program';

/** An `Io` that records what a command prints. */
export function capture(): { io: Io; out: () => string; err: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t) },
    out: () => out.join(''),
    err: () => err.join(''),
  };
}

/** The words of a command line as typed (`match --env tictactoe`): its argv. */
export function commandLine(line: string): string[] {
  return line.split(' ');
}

/** Runs `mage <argv>` in-process and returns its exit code and output. */
export async function runCaptured(
  argv: readonly string[],
): Promise<{ code: number; out: string; err: string }> {
  const c = capture();
  const code = await runCli(argv, c.io);
  return { code, out: c.out(), err: c.err() };
}

/** Runs `mage <argv> --json`, expects success and no stderr, and parses stdout. */
export async function runJson<T>(argv: readonly string[]): Promise<T> {
  const r = await runCaptured([...argv, '--json']);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.out) as T;
}

/** Polls `read` until it matches `pattern` (a server's address in its output, say); throws after `ms`. */
export async function waitFor(read: () => string, pattern: RegExp, ms = 60_000): Promise<RegExpMatchArray> {
  const end = Date.now() + ms;
  for (;;) {
    const m = read().match(pattern);
    if (m) return m;
    if (Date.now() > end) throw new Error(`timed out waiting for ${pattern}: ${read()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export { useTempDir } from '@mage-rl/core/testing/vitest';

/** Writes an untrained mage-tiny (word-level tokenizer, `seed`) into `dir` and returns `dir`. */
export async function saveTinyModel(dir: string, seed: number, note = 'test'): Promise<string> {
  const tokenizer = buildMageTinyTokenizer([]);
  const model = await createMageTiny(tokenizer, { seed, runner: 'local' });
  await saveMageTiny(dir, model, tokenizer, { note });
  await model.dispose();
  return dir;
}
