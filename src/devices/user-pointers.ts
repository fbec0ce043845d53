import { ErrorCode, fail } from '../core/errors.ts';
import type { StoredObject } from '../core/ports/object-store.ts';
import { isJsonObject } from '../query/json-value.ts';
import { InstallationField } from './installation-fields.ts';

/** `{__type: "Pointer", className: "_User", objectId}`: what `user` must hold. */
export interface UserPointer {
  __type: 'Pointer';
  className: '_User';
  objectId: string;
}

/** Whether a value is a Pointer to a user with an objectId. */
export function isUserPointer(value: unknown): value is UserPointer {
  return isJsonObject(value) && value.__type === 'Pointer' && value.className === '_User' && typeof value.objectId === 'string' && value.objectId !== '';
}

/**
 * Whether a user reference (any object naming `className: "_User"`: a
 * Pointer, an Object, a Relation) appears anywhere inside `value`, not
 * counting `value` itself. Arrays, objects and `{__op, objects}` are looked
 * into, iteratively, so no depth of nesting can overflow the stack.
 */
export function nestsUserReference(value: unknown): boolean {
  const pending: unknown[] = [];
  const visit = (parent: unknown): void => {
    for (const child of children(parent)) pending.push(child);
  };
  visit(value);
  while (pending.length > 0) {
    const item = pending.pop();
    if (isJsonObject(item) && item.className === '_User') return true;
    visit(item);
  }
  return false;
}

function children(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  return isJsonObject(value) ? Object.values(value) : [];
}

/**
 * Refuses (111) a write that would put a user reference anywhere but as the
 * whole value of a field. A matcher's array-contains equality would let such
 * a reference answer a push's `where: {field: <user>}`, and the ownership
 * check judges only a pointer given as the value; so arrays, objects and
 * every `__op` (Add, AddUnique, Remove, ...) may not carry one. Only the
 * master key may (`allowNested`), and never in `user`, which `checkUserField`
 * judges.
 */
export function checkUserReferences(field: string, value: unknown, allowNested: boolean): void {
  if (allowNested || !nestsUserReference(value)) return;
  fail(
    ErrorCode.invalidType,
    `${field} holds a _User pointer inside an array, an object or an __op: a user may only be the whole value of a field (only the master key may nest one, and never in user)`,
  );
}

/**
 * `user` names the one owner of a device, with every key: a Pointer to
 * `_User`, or null / `{__op: Delete}` to remove it. Anything else (an array,
 * an Add of pointers, a pointer to another class, a string) answers 111, so
 * that `where: {user: X}` means "the devices X owns".
 */
export function checkUserField(value: unknown): void {
  if (value === null || (isJsonObject(value) && value.__op === 'Delete')) return;
  if (isUserPointer(value) && !nestsUserReference(value)) return;
  fail(
    ErrorCode.invalidType,
    'user must be a Pointer to _User ({"__type": "Pointer", "className": "_User", "objectId": ...}), or null to remove it; arrays and __op operations are refused',
  );
}

/**
 * An installation as pushes and queries match it: a `user` that is not a
 * single Pointer to `_User` (stored before that rule, or imported from
 * elsewhere) is left out, so it can neither answer `where: {user: X}` nor
 * be shown. The document is answered as it is when there is nothing to hide.
 */
export function withoutStrayUser<T extends Readonly<StoredObject>>(installation: T): T {
  const user = installation[InstallationField.user];
  if (user === undefined || isUserPointer(user)) return installation;
  const { [InstallationField.user]: _stray, ...rest } = installation;
  return rest as T;
}
