/** The id of `key` in `ids`, numbering new keys 0, 1, 2, … in order of first appearance. */
export function intern<K>(ids: Map<K, number>, key: K): number {
  let id = ids.get(key);
  if (id === undefined) {
    id = ids.size;
    ids.set(key, id);
  }
  return id;
}
