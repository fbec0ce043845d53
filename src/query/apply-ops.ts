import type { FieldOp, StoredObject } from '../core/ports/object-store.ts';
import { ErrorCode, HeraldError, PreconditionFailedError, fail } from '../core/errors.ts';
import { setOwn, valueAtPath } from './field-path.ts';
import { isJsonObject, jsonEqual } from './json-value.ts';

/** Marks a field for removal in `updateAt`. */
const remove = Symbol('remove');

/**
 * Applies field operations in order and answers a new object; the input is
 * not changed (objects along each path are copied, others are shared).
 * A number or array op on a field of another type throws code 111.
 */
export function applyOps(object: Readonly<StoredObject>, ops: readonly FieldOp[]): StoredObject {
  let result: Record<string, unknown> = { ...object };
  for (const op of ops) result = applyOp(result, op);
  // Every op keeps the three string fields unless a caller sets them itself.
  return result as StoredObject;
}

function applyOp(object: Record<string, unknown>, op: FieldOp): Record<string, unknown> {
  const name = op.path.join('.');
  switch (op.op) {
    case 'set':
      return updateAt(object, op.path, () => op.value);
    case 'delete':
      return updateAt(object, op.path, () => remove, { createMissing: false });
    case 'increment':
      return updateAt(object, op.path, (current) => {
        if (current === undefined) return op.amount;
        if (typeof current !== 'number') fail(ErrorCode.invalidType, `field ${name} is not a number`);
        return current + op.amount;
      });
    case 'add':
      return updateAt(object, op.path, (current) => [...arrayAt(name, current), ...op.objects]);
    case 'addUnique':
      return updateAt(object, op.path, (current) => {
        const result = [...arrayAt(name, current)];
        for (const item of op.objects) if (!result.some((existing) => jsonEqual(existing, item))) result.push(item);
        return result;
      });
    case 'remove':
      return updateAt(object, op.path, (current) =>
        arrayAt(name, current).filter((existing) => !op.objects.some((item) => jsonEqual(existing, item))),
      );
    case 'expect': {
      const current = valueAtPath(object, op.path);
      const holds = op.value === undefined ? current === undefined : current !== undefined && jsonEqual(current, op.value);
      if (!holds) throw new PreconditionFailedError(name);
      return object;
    }
  }
}

function arrayAt(name: string, current: unknown): readonly unknown[] {
  if (current === undefined) return [];
  if (!Array.isArray(current)) fail(ErrorCode.invalidType, `field ${name} is not an array`);
  return current;
}

/**
 * Copies `object` with the value at `path` replaced by `change(current)`.
 * Missing parents are created (unless only deleting); a parent that is not
 * an object throws 111, or for a delete leaves the object as it is.
 */
function updateAt(
  object: Record<string, unknown>,
  path: readonly string[],
  change: (current: unknown) => unknown,
  { createMissing = true } = {},
): Record<string, unknown> {
  const [key, ...rest] = path;
  if (key === undefined) throw new HeraldError(ErrorCode.internal, 'field operation without a field name', { status: 500 });
  const current = Object.hasOwn(object, key) ? object[key] : undefined;
  const copy = { ...object };
  if (rest.length === 0) {
    const next = change(current);
    if (next === remove) delete copy[key];
    else setOwn(copy, key, next);
    return copy;
  }
  if (current === undefined && !createMissing) return object;
  if (current !== undefined && !isJsonObject(current)) {
    if (!createMissing) return object;
    fail(ErrorCode.invalidType, `field ${key} is not an object, so ${rest.join('.')} cannot be set in it`);
  }
  setOwn(copy, key, updateAt(current ?? {}, rest, change, { createMissing }));
  return copy;
}
