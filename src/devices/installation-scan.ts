import type { DeviceKey, InstallationIndex, InstallationPage, InstallationStore } from '../core/ports/installation-store.ts';
import type { StoredObject } from '../core/ports/object-store.ts';
import type { Condition, FieldPredicate } from '../query/query.ts';
import { withTokenCaseInWhere } from './device-token-case.ts';
import { InstallationField } from './installation-fields.ts';

/** Installations read per `scanShard` call: what a query holds of the store at a time (plus one page read ahead). */
export const scanPageSize = 200;

/** A channel or device-type index of the store. */
export type IndexRead = Exclude<InstallationIndex, { kind: 'all' }>;

/**
 * Which installations a `where` can possibly match, as store reads: none
 * (`$in: []`), one device by its unique key, the members of one or more
 * channels or device types, or every shard. The reader still applies the
 * whole `where` to each installation read.
 */
export type ScanPlan = { kind: 'none' } | { kind: 'device'; key: DeviceKey } | { kind: 'indexes'; indexes: IndexRead[] } | { kind: 'all' };

/**
 * Chooses the narrowest read for a `where`, from the conditions that every
 * match must meet (the top level and its `$and`s; `$or` branches are not
 * used): a deviceToken or installationId, then channels (one pinned by
 * equality or `$all`, else the values of a `$in`), then deviceType. An iOS
 * token is looked up in lower case, as installations keep it.
 */
export function planInstallationScan(where: Condition | null): ScanPlan {
  const fields = requiredFieldConditions(withTokenCaseInWhere(where));
  if (fields.some(({ predicates }) => predicates.some(matchesNothing))) return { kind: 'none' };
  for (const field of [InstallationField.deviceToken, InstallationField.installationId] as const) {
    const value = pinnedValue(fields, field);
    if (value !== null) return { kind: 'device', key: { field, value } };
  }
  const channel = pinnedValue(fields, InstallationField.channels, { all: true });
  if (channel !== null) return { kind: 'indexes', indexes: [{ kind: 'channel', channel }] };
  const channels = inValues(fields, InstallationField.channels);
  if (channels !== null) return { kind: 'indexes', indexes: channels.map((name) => ({ kind: 'channel', channel: name })) };
  const deviceType = pinnedValue(fields, InstallationField.deviceType);
  if (deviceType !== null) return { kind: 'indexes', indexes: [{ kind: 'deviceType', deviceType }] };
  const deviceTypes = inValues(fields, InstallationField.deviceType);
  if (deviceTypes !== null) return { kind: 'indexes', indexes: deviceTypes.map((name) => ({ kind: 'deviceType', deviceType: name })) };
  return { kind: 'all' };
}

/**
 * The installations of a plan, page by page and shard by shard: never more
 * than two pages in memory, one `scanShard` call in flight at a time. An
 * installation in several of the plan's indexes is answered once, from the
 * first of them that holds it.
 */
export async function* scanInstallations(store: InstallationStore, appId: string, plan: ScanPlan, pageSize = scanPageSize): AsyncGenerator<StoredObject> {
  switch (plan.kind) {
    case 'none':
      return;
    case 'device': {
      const installation = await store.findByDevice(appId, plan.key);
      if (installation !== null) yield installation;
      return;
    }
    case 'all':
      for await (const page of shardPages(store, appId, { kind: 'all' }, pageSize)) yield* page;
      return;
    case 'indexes':
      for (const [position, index] of plan.indexes.entries()) {
        const earlier = plan.indexes.slice(0, position);
        for await (const page of shardPages(store, appId, index, pageSize)) {
          for (const installation of page) if (!earlier.some((other) => holdsIndex(installation, other))) yield installation;
        }
      }
  }
}

/** Every page of one index over all shards, the next page read while the caller works on this one. */
async function* shardPages(store: InstallationStore, appId: string, index: InstallationIndex, pageSize: number): AsyncGenerator<StoredObject[]> {
  const read = (shard: number, after: string | null): Promise<InstallationPage> => store.scanShard(appId, { shard, index, after, limit: pageSize });
  let shard = 0;
  let pending: Promise<InstallationPage> | null = store.shardCount > 0 ? read(0, null) : null;
  try {
    while (pending !== null) {
      const page: InstallationPage = await pending;
      if (page.next !== null) {
        pending = read(shard, page.next);
      } else {
        shard += 1;
        pending = shard < store.shardCount ? read(shard, null) : null;
      }
      yield page.installations;
    }
  } finally {
    // A reader that stopped early leaves the read-ahead unobserved; its failure no longer matters.
    pending?.catch(() => undefined);
  }
}

/** Whether an installation is in an index: subscribed to its channel, or of its device type. */
export function holdsIndex(installation: StoredObject, index: IndexRead): boolean {
  if (index.kind === 'deviceType') return installation[InstallationField.deviceType] === index.deviceType;
  const channels = installation[InstallationField.channels];
  return Array.isArray(channels) && channels.includes(index.channel);
}

type FieldCondition = Extract<Condition, { kind: 'field' }>;

/** The field conditions every match meets: those at the top level and inside top-level `$and`s. */
function requiredFieldConditions(where: Condition | null): FieldCondition[] {
  if (where === null) return [];
  if (where.kind === 'field') return [where];
  if (where.kind === 'and') return where.conditions.flatMap(requiredFieldConditions);
  return [];
}

/** `$in: []` and `$all: []` match no installation. */
function matchesNothing(predicate: FieldPredicate): boolean {
  return (predicate.op === 'in' || predicate.op === 'all') && predicate.values.length === 0;
}

function onField(fields: readonly FieldCondition[], name: string): FieldPredicate[] {
  return fields.filter(({ path }) => path.length === 1 && path[0] === name).flatMap(({ predicates }) => predicates);
}

/** A string the field must equal (or, for an array, contain), if a condition pins one; with `all`, `$all` pins its first value too. */
function pinnedValue(fields: readonly FieldCondition[], name: string, options: { all?: boolean } = {}): string | null {
  for (const predicate of onField(fields, name)) {
    if (predicate.op === 'eq' && typeof predicate.value === 'string') return predicate.value;
    if (options.all && predicate.op === 'all' && predicate.values.every((value) => typeof value === 'string')) {
      const [first] = predicate.values;
      if (typeof first === 'string') return first;
    }
  }
  return null;
}

/** The fewest distinct strings of a `$in` on the field that lists only strings, if there is one. */
function inValues(fields: readonly FieldCondition[], name: string): string[] | null {
  let best: string[] | null = null;
  for (const predicate of onField(fields, name)) {
    if (predicate.op !== 'in') continue;
    const strings = predicate.values.filter((value): value is string => typeof value === 'string');
    if (strings.length !== predicate.values.length) continue;
    const values = [...new Set(strings)];
    if (best === null || values.length < best.length) best = values;
  }
  return best;
}
