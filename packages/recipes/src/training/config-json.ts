/** A resolved config as the JSON a run records in its config.json. */

import type { JsonObject, JsonValue } from '@mage-rl/core';

/**
 * The JSON `JSON.stringify` writes for `value`, typed as JSON: entries that are undefined (or functions,
 * symbols) are dropped from objects and become null in arrays, non-finite numbers become null.
 */
export function toJsonObject(value: object): JsonObject {
  const out: Record<string, JsonValue> = {};
  for (const [key, entry] of Object.entries(value)) {
    const json = toJsonValue(entry);
    if (json !== undefined) out[key] = json;
  }
  return out;
}

function toJsonValue(value: unknown): JsonValue | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (Array.isArray(value)) return value.map((entry) => toJsonValue(entry) ?? null);
  if (typeof value === 'object') return toJsonObject(value);
  return undefined;
}
