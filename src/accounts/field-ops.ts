import { ErrorCode, fail } from '../core/errors.ts';
import type { FieldOp } from '../core/ports/object-store.ts';

/**
 * Turns one body value into a store operation: a plain value sets the field,
 * `{__op: ...}` asks for Delete, Increment, Add, AddUnique or Remove.
 */
export function toFieldOp(path: string[], value: unknown): FieldOp {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !('__op' in value)) {
    return { op: 'set', path, value };
  }
  const operation = value as Record<string, unknown>;
  const name = path.join('.');
  switch (operation.__op) {
    case 'Delete':
      return { op: 'delete', path };
    case 'Increment': {
      const amount = operation.amount ?? 1;
      if (typeof amount !== 'number' || !Number.isFinite(amount)) fail(ErrorCode.invalidType, `Increment of ${name} needs a numeric amount`);
      return { op: 'increment', path, amount };
    }
    case 'Add':
    case 'AddUnique':
    case 'Remove': {
      if (!Array.isArray(operation.objects)) fail(ErrorCode.invalidType, `${String(operation.__op)} on ${name} needs an objects array`);
      const op = operation.__op === 'Add' ? 'add' : operation.__op === 'AddUnique' ? 'addUnique' : 'remove';
      return { op, path, objects: operation.objects };
    }
    default:
      return fail(ErrorCode.internal, `unknown __op on ${name}: ${String(operation.__op).slice(0, 40)}`);
  }
}
