import { isJsonObject } from './json-value.ts';

/**
 * The value at a nested path, or undefined when any step is missing. Only own
 * properties of objects are followed, so `constructor` or `__proto__` never
 * reach into prototypes.
 */
export function valueAtPath(object: unknown, path: readonly string[]): unknown {
  let current: unknown = object;
  for (const segment of path) {
    if (!isJsonObject(current) || !Object.hasOwn(current, segment)) return undefined;
    current = current[segment];
  }
  return current;
}

/** Sets an own property, even one named `__proto__`, without invoking setters. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
