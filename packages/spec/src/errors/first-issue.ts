/**
 * The first problem of a failed schema parse, in the words every error message of the project uses: the
 * dotted path of the bad value ('' for the whole input), the value found there and the schema's message.
 * Typed by shape (a zod error has it), so it needs no schema library.
 */

import { valueAt } from '../json/json';

/** What this reads of a failed parse: zod's `ZodError` has this shape. */
export interface IssuesLike {
  readonly issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[];
}

export interface FirstIssue {
  /** `a.b.0`; '' when the whole input is wrong or there is no issue. */
  readonly path: string;
  /** The value at the path in `input` (undefined without an input or where the path is missing). */
  readonly value: unknown;
  /** The schema's message; `invalid` when there is no issue. */
  readonly message: string;
}

/** The first issue of `error`, with the value it names in `input`. */
export function firstIssue(error: IssuesLike, input?: unknown): FirstIssue {
  const issue = error.issues[0];
  if (issue === undefined) return { path: '', value: undefined, message: 'invalid' };
  return {
    path: issue.path.map(String).join('.'),
    value: valueAt(input, issue.path),
    message: issue.message,
  };
}

/** A value as a message shows it: JSON where it has one, `NaN` / `Infinity` as such, `nothing` for undefined. */
export function showValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
