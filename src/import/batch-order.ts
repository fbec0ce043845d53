/**
 * Writes a batch of objects so that of two sharing a unique value (or an
 * objectId) the first in the batch wins, as a one-by-one import would: the
 * objects sharing nothing with an earlier one are written together, the
 * others after them, one at a time, in order. `keysOf`: an object's values
 * as strings; `write` answers an outcome per object given, in order.
 */
export async function inFileOrder<T extends object, O>(objects: readonly T[], keysOf: (object: T) => readonly string[], write: (objects: T[]) => Promise<O[]>): Promise<O[]> {
  const seen = new Set<string>();
  const together: T[] = [];
  const later: T[] = [];
  for (const object of objects) {
    const keys = keysOf(object);
    (keys.some((key) => seen.has(key)) ? later : together).push(object);
    for (const key of keys) seen.add(key);
  }
  const outcomes = new Map<T, O>();
  const first = together.length === 0 ? [] : await write(together);
  together.forEach((object, index) => outcomes.set(object, first[index] as O));
  for (const object of later) {
    const [outcome] = await write([object]);
    outcomes.set(object, outcome as O);
  }
  return objects.map((object) => outcomes.get(object) as O);
}
