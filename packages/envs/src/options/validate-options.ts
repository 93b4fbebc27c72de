/** Zod validation of env options, turned into `ConfigError`s that name the path and the allowed values. */

import { ConfigError, firstIssue } from '@mage-rl/spec';
import type { z } from 'zod';

/** Parse `input` with `schema`; throw a `ConfigError` (path `<envId>.<key>`) describing the first problem. */
export function validateOptions<T extends z.ZodType>(envId: string, schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (!issue) throw new ConfigError(`Invalid ${envId} options.`, { path: envId });
  const first = firstIssue(result.error, input);
  const keyPath = first.path;
  const path = keyPath === '' ? envId : `${envId}.${keyPath}`;
  const value = keyPath === '' ? undefined : first.value;
  let allowed = '';
  switch (issue.code) {
    case 'invalid_value':
      allowed = ` Allowed values: ${issue.values.map((v) => JSON.stringify(v)).join(', ')}.`;
      break;
    case 'too_big':
      allowed = ` Allowed: at most ${String(issue.maximum)}.`;
      break;
    case 'too_small':
      allowed = ` Allowed: at least ${String(issue.minimum)}.`;
      break;
    case 'unrecognized_keys': {
      const shape: unknown = 'shape' in schema ? schema.shape : undefined;
      const known = typeof shape === 'object' && shape !== null ? Object.keys(shape) : [];
      allowed = ` Unknown option(s) ${issue.keys.map((k) => `'${k}'`).join(', ')}; known options: ${known.join(', ')}.`;
      break;
    }
    default:
      break;
  }
  const shown = value === undefined ? '' : ` (got ${JSON.stringify(value)})`;
  throw new ConfigError(`Invalid ${envId} option '${path}'${shown}: ${issue.message}.${allowed}`, {
    path,
    context: { issues: result.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })) },
  });
}
