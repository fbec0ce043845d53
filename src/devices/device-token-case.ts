import type { DeviceKey, InstallationStore } from '../core/ports/installation-store.ts';
import type { StoredObject } from '../core/ports/object-store.ts';
import { isIosDeviceToken, normalIosToken } from '../push/requests/device-target.ts';
import type { Condition, FieldPredicate } from '../query/query.ts';
import { InstallationField } from './installation-fields.ts';
import type { InstallationInput } from './installation-input.ts';

/**
 * The spellings an iOS device token may be stored under, the one Herald
 * writes (lower case) first. Installations saved before tokens were
 * normalised hold them as their SDK sent them, in practice all upper or all
 * lower case; their next save finds them and rewrites the token.
 */
export function storedSpellings(key: DeviceKey): string[] {
  if (key.field !== InstallationField.deviceToken || !isIosDeviceToken(key.value)) return [key.value];
  return [...new Set([key.value.toLowerCase(), key.value, key.value.toUpperCase()])];
}

/** The installation holding a device key, under any spelling a save may have stored it with. */
export async function findDevice(store: Pick<InstallationStore, 'findByDevice'>, appId: string, key: DeviceKey): Promise<StoredObject | null> {
  for (const value of storedSpellings(key)) {
    const found = await store.findByDevice(appId, { field: key.field, value });
    if (found !== null) return found;
  }
  return null;
}

/** The write with its `deviceToken` in lower case, for an installation that is (or becomes) an iOS one. */
export function withIosTokenCase(input: InstallationInput): InstallationInput {
  if (input.deviceToken === undefined) return input;
  const deviceToken = normalIosToken(input.deviceToken);
  const ops = input.ops.map((op) => (op.op === 'set' && op.path.length === 1 && op.path[0] === InstallationField.deviceToken ? { ...op, value: deviceToken } : op));
  return { ...input, ops, deviceToken };
}

/** An installation read from an export, with an iOS deviceToken in lower case. */
export function withStoredTokenCase(installation: StoredObject): StoredObject {
  const token = installation[InstallationField.deviceToken];
  if (installation[InstallationField.deviceType] !== 'ios' || typeof token !== 'string') return installation;
  return { ...installation, [InstallationField.deviceToken]: normalIosToken(token) };
}

/**
 * A `where` whose values for `deviceToken` (equality, `$ne`, `$in`, `$nin`,
 * `$all`) that are iOS tokens are in lower case, as installations store
 * them: a query or push naming a token in the case its SDK sent finds the
 * device. Other values (Android vendor tokens, `$regex`) are left as given.
 */
export function withTokenCaseInWhere(where: Condition | null): Condition | null {
  if (where === null) return null;
  if (where.kind !== 'field') {
    const conditions = where.conditions.map((condition) => withTokenCaseInWhere(condition) ?? condition);
    return { kind: where.kind, conditions };
  }
  if (where.path.length !== 1 || where.path[0] !== InstallationField.deviceToken) return where;
  return { ...where, predicates: where.predicates.map(lowerTokens) };
}

function lowerTokens(predicate: FieldPredicate): FieldPredicate {
  const lower = (value: unknown): unknown => (typeof value === 'string' ? normalIosToken(value) : value);
  switch (predicate.op) {
    case 'eq':
    case 'ne':
      return { ...predicate, value: lower(predicate.value) };
    case 'in':
    case 'nin':
    case 'all':
      return { ...predicate, values: predicate.values.map(lower) };
    default:
      return predicate;
  }
}
