/** JSON values: what records, observations and configs are made of. */
export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | readonly JsonValue[] | { readonly [key: string]: JsonValue };
export type JsonObject = { readonly [key: string]: JsonValue };

/**
 * True when `value` survives `JSON.parse(JSON.stringify(value))` unchanged: only plain objects, arrays,
 * strings, finite numbers, booleans and null; no undefined, functions, class instances, cycles, NaN.
 */
export function isJsonSafe(value: unknown, seen: Set<object> = new Set()): boolean {
  if (value === null) return true;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object': {
      if (seen.has(value)) return false;
      seen.add(value);
      let ok: boolean;
      if (Array.isArray(value)) {
        ok = value.every((v) => isJsonSafe(v, seen));
      } else {
        const proto = Object.getPrototypeOf(value);
        ok =
          (proto === Object.prototype || proto === null) &&
          Object.values(value as Record<string, unknown>).every((v) => isJsonSafe(v, seen));
      }
      seen.delete(value);
      return ok;
    }
    default:
      return false;
  }
}

/** `value[path[0]][path[1]]…` of parsed data; `undefined` where a step is missing or not an object. */
export function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>(
    (v, k) => (typeof v === 'object' && v !== null ? (v as Record<PropertyKey, unknown>)[k] : undefined),
    value,
  );
}
