/** Zod issues → `ConfigError`s that name the dotted path, the bad value and what is allowed. */

import { ConfigError, firstIssue, showValue as show } from '@mage-rl/core';
import type { z } from 'zod';

/** Keys of the object schema at `path` (through nested strict objects). */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let s: unknown = schema;
  for (const key of path) {
    const shape = (s as { shape?: Record<string, unknown> }).shape;
    if (!shape) return [];
    s = shape[String(key)];
  }
  const shape = (s as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
}

/** The first issue of a failed parse of `input` against `schema`, as a `ConfigError`. */
export function configErrorFromZod(error: z.ZodError, input: unknown, schema: z.ZodType): ConfigError {
  const issue = error.issues[0];
  if (!issue) return new ConfigError('Invalid configuration.');
  const { path: dotted, value } = firstIssue(error, input);
  let allowed: string;
  let message: string;
  switch (issue.code) {
    case 'invalid_value':
      allowed = `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
      message = `${dotted} must be ${allowed}, got ${show(value)}.`;
      break;
    case 'too_small':
      allowed = `${issue.inclusive === false ? 'greater than' : 'at least'} ${String(issue.minimum)}`;
      message = `${dotted} must be ${allowed}, got ${show(value)}.`;
      break;
    case 'too_big':
      allowed = `${issue.inclusive === false ? 'less than' : 'at most'} ${String(issue.maximum)}`;
      message = `${dotted} must be ${allowed}, got ${show(value)}.`;
      break;
    case 'invalid_type':
      allowed = `a${/^[aeiou]/.test(issue.expected) ? 'n' : ''} ${issue.expected}`;
      message = `${dotted || 'the configuration'} must be ${allowed}, got ${show(value)}.`;
      break;
    case 'unrecognized_keys': {
      const known = keysAt(schema, issue.path);
      allowed = `known keys: ${known.join(', ')}`;
      const where = dotted === '' ? 'the configuration' : dotted;
      const keys = issue.keys.map((k) => `'${k}'`).join(', ');
      message = `Unknown key(s) ${keys} in ${where}; ${allowed}.`;
      const first = issue.keys[0];
      return new ConfigError(message, {
        path: dotted === '' ? String(first) : `${dotted}.${String(first)}`,
        context: { value: issue.keys, allowed: known },
      });
    }
    case 'invalid_union': {
      const options = issue.errors.map((branch) => {
        const first = branch[0];
        if (first?.code === 'invalid_value') return first.values.map((v) => JSON.stringify(v)).join(', ');
        if (first?.code === 'invalid_type')
          return `a${/^[aeiou]/.test(first.expected) ? 'n' : ''} ${first.expected}`;
        return first?.message ?? '?';
      });
      allowed = options.join(' or ');
      message = `${dotted || 'the configuration'} must be ${allowed}, got ${show(value)}.`;
      break;
    }
    default:
      allowed = issue.message;
      message = `${dotted || 'the configuration'}: ${issue.message} (got ${show(value)}).`;
  }
  return new ConfigError(message, { path: dotted, context: { value, allowed } });
}
