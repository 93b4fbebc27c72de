import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
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
