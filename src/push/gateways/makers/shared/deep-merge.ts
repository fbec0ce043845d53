import { setOwn } from '../../../../query/field-path.ts';
import { isJsonObject } from '../../../../query/json-value.ts';

/** `over` laid over `base`, as a maker's fields from `data.<maker>` over Herald's request: objects merged key by key, any other value replacing. */
export function deepMerge(base: Readonly<Record<string, unknown>>, over: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = Object.hasOwn(merged, key) ? merged[key] : undefined;
    setOwn(merged, key, isJsonObject(current) && isJsonObject(value) ? deepMerge(current, value) : value);
  }
  return merged;
}
