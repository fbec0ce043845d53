import type { InstallationIndex } from '../../core/ports/installation-store.ts';
import type { Condition } from '../../query/query.ts';

/**
 * The index rows that hold every installation a condition can match, read
 * one after another: the subscribers of each channel, the installations of
 * each device type, or all of them. A plan of several channels reads an
 * installation once: the part for channel i skips installations subscribed
 * to any earlier channel (`skipChannels`).
 */
export interface AudiencePart {
  index: InstallationIndex;
  skipChannels: string[];
}

/**
 * Chooses what to read for `where` so that the cost follows the audience,
 * not the app: a condition every match must meet on `channels` (equality,
 * `$in`, `$all`) reads those channels' rows; one on `deviceType` reads those
 * types'; anything else reads every installation. Only conditions ANDed at
 * the top level count; the full `where` is applied to every row read anyway.
 */
export function planAudience(where: Condition | null): AudiencePart[] {
  const channels = smallest(requiredValues(where, 'channels'));
  if (channels !== null) {
    return channels.map((channel, i) => ({ index: { kind: 'channel', channel }, skipChannels: channels.slice(0, i) }));
  }
  const types = smallest(requiredValues(where, 'deviceType'));
  if (types !== null) return types.map((deviceType) => ({ index: { kind: 'deviceType', deviceType }, skipChannels: [] }));
  return [{ index: { kind: 'all' }, skipChannels: [] }];
}

/** For each top-level conjunct on `field`, the values one of which every match holds. */
function requiredValues(where: Condition | null, field: string): string[][] {
  if (where === null) return [];
  if (where.kind === 'and') return where.conditions.flatMap((condition) => requiredValues(condition, field));
  if (where.kind !== 'field' || where.path.length !== 1 || where.path[0] !== field) return [];
  const sets: string[][] = [];
  for (const predicate of where.predicates) {
    if (predicate.op === 'eq' && typeof predicate.value === 'string') sets.push([predicate.value]);
    else if (predicate.op === 'in' && predicate.values.every((value) => typeof value === 'string')) sets.push([...new Set(predicate.values)]);
    else if (predicate.op === 'all' && typeof predicate.values[0] === 'string') sets.push([predicate.values[0]]);
  }
  return sets;
}

function smallest(sets: string[][]): string[] | null {
  let best: string[] | null = null;
  for (const set of sets) if (best === null || set.length < best.length) best = set;
  return best;
}
