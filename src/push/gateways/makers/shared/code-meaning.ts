/**
 * What a maker's answer code means, from its table, by the table's own keys
 * only: an answer's code such as "constructor" or "toString" is no word of
 * the maker's, and must read as unknown rather than as a property every
 * object inherits.
 */
export function codeMeaning<T>(table: Readonly<Record<string, T>>, code: string | undefined): T | undefined {
  return code !== undefined && Object.hasOwn(table, code) ? table[code] : undefined;
}
