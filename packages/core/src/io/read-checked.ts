/**
 * The one reader of JSON files the project reads back (run records, checkpoints, manifests, configs):
 * missing, unreadable, malformed, too deeply nested or wrongly shaped content becomes a `MageError` that
 * names the file, what is wrong and how to fix it, never a `SyntaxError`, `TypeError` or `RangeError`.
 */

import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { CheckpointError, ConfigError, firstIssue, type IssuesLike, type MageError } from '@mage-rl/spec';
import type { z } from 'zod';

/** How deep a JSON file may nest (deeper input is refused before anything walks it recursively). */
export const MAX_JSON_DEPTH = 64;

export interface JsonFileSpec<T> {
  /** What the file is, for messages: `the run's config.json`. */
  readonly what: string;
  /** What the user can do about a bad file: `delete it and run the command again`. */
  readonly fix: string;
  /** The expected shape; the parsed value is returned as the schema's output. */
  readonly schema?: z.ZodType<T>;
  /** Which error a bad file is: a user's config (`ConfigError`), a record or checkpoint, or a model file. */
  readonly kind?: 'config' | 'checkpoint' | 'model';
}

function fail(path: string, spec: JsonFileSpec<unknown>, problem: string, cause?: unknown): MageError {
  const message = `'${path}' (${spec.what}) ${problem}; ${spec.fix}.`;
  const options = { ...(cause === undefined ? {} : { cause }), context: { path } };
  if (spec.kind === 'config') return new ConfigError(message, { ...options, path });
  return new CheckpointError(message, {
    ...options,
    ...(spec.kind === 'model' ? { code: 'MODEL_FORMAT' as const } : {}),
  });
}

/** The nesting depth of `text` as JSON (brackets outside strings), counted without recursion. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}

function describeIssue(error: IssuesLike): string {
  const { path, message } = firstIssue(error);
  return `does not have the expected shape${path === '' ? '' : ` at ${path}`} (${message})`;
}

/** Parses and checks the text of a JSON file (see `readJsonChecked`). */
export function parseJsonChecked<T = unknown>(text: string, path: string, spec: JsonFileSpec<T>): T {
  if (jsonDepth(text) > MAX_JSON_DEPTH) {
    throw fail(path, spec, `nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw fail(path, spec, 'is not valid JSON (truncated or corrupt)', error);
  }
  if (!spec.schema) return value as T;
  const parsed = spec.schema.safeParse(value);
  if (!parsed.success) throw fail(path, spec, describeIssue(parsed.error), parsed.error);
  return parsed.data;
}

function readFailure(path: string, spec: JsonFileSpec<unknown>, error: unknown): MageError {
  const code = (error as NodeJS.ErrnoException).code;
  const problem =
    code === 'ENOENT'
      ? 'does not exist'
      : code === 'EISDIR'
        ? 'is a directory, not a file'
        : `could not be read (${(error as Error).message})`;
  return fail(path, spec, problem, error);
}

/** Reads, parses and checks a JSON file; every failure is a `MageError` naming the file and the fix. */
export async function readJsonChecked<T = unknown>(path: string, spec: JsonFileSpec<T>): Promise<T> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw readFailure(path, spec, error);
  }
  return parseJsonChecked(text, path, spec);
}

/** `readJsonChecked` for synchronous callers (command-line flag parsing). */
export function readJsonCheckedSync<T = unknown>(path: string, spec: JsonFileSpec<T>): T {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw readFailure(path, spec, error);
  }
  return parseJsonChecked(text, path, spec);
}
