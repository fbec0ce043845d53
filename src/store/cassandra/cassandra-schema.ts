import { createHash } from 'node:crypto';
import type { CqlSession } from './cassandra-client.ts';
import { moveClaims } from './claims-move.ts';
import type { CassandraReplication } from './cassandra-store-options.ts';

/**
 * Objects of one class are spread over this many partitions by a hash of
 * their id. Part of the stored data: changing it strands existing rows.
 */
export const objectBuckets = 16;

/**
 * Tables whose rows all carry a TTL and are never deleted (the delivery
 * log): SSTables grouped by day of writing, so that once every row of a day
 * has expired its SSTable is dropped whole rather than compacted cell by
 * cell (no tombstones to read past, no compaction of expired data); expired
 * cells are purged 3 hours after their expiry rather than the default 10 days,
 * as nothing is deleted that a repair would have to carry.
 */
const expiringRows =
  "compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': 1} AND gc_grace_seconds = 10800";

/** One schema step: idempotent DDL statements, applied in order, then a step on the data if it has one. */
export interface CassandraMigration {
  version: number;
  description: string;
  statements(keyspace: string): string[];
  /** Runs after the DDL and may run again if a node dies before the step is recorded; `renew` keeps the schema lease. */
  data?(session: CqlSession, keyspace: string, renew: () => Promise<void>): Promise<void>;
}

/**
 * Migrations in order; `schema_migrations` holds one row per version
 * applied. Append new steps, never edit old ones. Every table gets an id
 * derived from its keyspace and name, so that nodes creating it at the same
 * moment create the same table rather than two that disagree.
 */
export const cassandraMigrations: readonly CassandraMigration[] = [
  {
    version: 1,
    description: 'objects by (app, class, bucket), unique values, tokens',
    statements: (keyspace) => [
      createTable(
        keyspace,
        'objects',
        `app_id text, class text, bucket int, object_id text, doc text, rev int,
         PRIMARY KEY ((app_id, class, bucket), object_id)`,
      ),
      createTable(
        keyspace,
        'unique_values',
        `app_id text, class text, field text, value text, object_id text, claim_id text, confirmed boolean,
         PRIMARY KEY ((app_id, class, field, value))`,
      ),
      createTable(
        keyspace,
        'tokens',
        `app_id text, kind text, token_hash text, payload text, expires_at timestamp,
         PRIMARY KEY ((app_id, kind, token_hash))`,
      ),
    ],
  },
  {
    version: 2,
    description: 'push data: installations by shard with channel and device-type copies, push records and results, scheduled pushes by due minute',
    statements: (keyspace) => [
      createTable(keyspace, 'store_settings', 'name text PRIMARY KEY, value text'),
      createTable(
        keyspace,
        'installations',
        `app_id text, shard int, object_id text, doc text, rev int, ts bigint, retired set<text>,
         PRIMARY KEY ((app_id, shard), object_id)`,
      ),
      createTable(
        keyspace,
        'installations_by_channel',
        `app_id text, channel text, shard int, object_id text, doc text,
         PRIMARY KEY ((app_id, channel, shard), object_id)`,
      ),
      createTable(
        keyspace,
        'installations_by_type',
        `app_id text, device_type text, shard int, object_id text, doc text,
         PRIMARY KEY ((app_id, device_type, shard), object_id)`,
      ),
      createTable(keyspace, 'push_records', 'app_id text, object_id text, doc text, fields map<text, text>, PRIMARY KEY ((app_id, object_id))'),
      createTable(
        keyspace,
        'push_records_by_day',
        'app_id text, day int, created_at timestamp, object_id text, PRIMARY KEY ((app_id, day), created_at, object_id)',
        'CLUSTERING ORDER BY (created_at DESC, object_id DESC)',
      ),
      createTable(
        keyspace,
        'push_records_by_notification',
        'app_id text, notification_id text, created_at timestamp, object_id text, PRIMARY KEY ((app_id, notification_id), created_at, object_id)',
        'CLUSTERING ORDER BY (created_at DESC, object_id DESC)',
      ),
      createTable(
        keyspace,
        'push_results',
        'app_id text, push_id text, slice_key text, counts text, final boolean, PRIMARY KEY ((app_id, push_id), slice_key)',
      ),
      createTable(
        keyspace,
        'scheduled_pushes',
        'app_id text, id bigint, due_at bigint, push_id text, created_at text, message text, PRIMARY KEY ((app_id), id)',
      ),
      createTable(
        keyspace,
        'scheduled_pushes_due',
        'bucket bigint, due_at bigint, app_id text, id bigint, PRIMARY KEY ((bucket), due_at, app_id, id)',
      ),
    ],
  },
  {
    version: 3,
    description:
      'installation index entries without a copy of the installation: a save writes only the entries it changes, listed in installations.added beside retired',
    statements: (keyspace) => [`ALTER TABLE ${keyspace}.installations ADD IF NOT EXISTS added set<text>`],
  },
  {
    version: 4,
    description:
      'installations by registrationId: entries in installations_by_registration, and installations.registered naming the registrationId whose entry the row\'s revision wrote (a row written before has none, and gets its entry on its next save)',
    statements: (keyspace) => [
      createTable(
        keyspace,
        'installations_by_registration',
        `app_id text, registration_id text, object_id text,
         PRIMARY KEY ((app_id, registration_id), object_id)`,
      ),
      `ALTER TABLE ${keyspace}.installations ADD IF NOT EXISTS registered text`,
    ],
  },
  {
    version: 5,
    description:
      'the delivery log: delivery_slices (a slice\'s entries by outcome, a partition per slice), delivery_push_slices ((app, push): the slices\' counts), delivery_ranges ((app, installation bucket, day): the slices that may hold an installation); every row written with a TTL and compacted by time window',
    statements: (keyspace) => [
      createTable(
        keyspace,
        'delivery_slices',
        `app_id text, push_id text, slice_key text, written_at timestamp,
         failed_entries blob, invalid_token_entries blob, delivered_entries blob,
         PRIMARY KEY ((app_id, push_id, slice_key))`,
        expiringRows,
      ),
      createTable(
        keyspace,
        'delivery_push_slices',
        `app_id text, push_id text, slice_key text, written_at timestamp, failed int, invalid_tokens int, delivered int,
         PRIMARY KEY ((app_id, push_id), slice_key)`,
        expiringRows,
      ),
      createTable(
        keyspace,
        'delivery_ranges',
        `app_id text, bucket int, day int, written_at timestamp, push_id text, slice_key text, low text, high text, filter blob,
         PRIMARY KEY ((app_id, bucket, day), written_at, push_id, slice_key)`,
        `CLUSTERING ORDER BY (written_at DESC, push_id DESC, slice_key DESC) AND ${expiringRows}`,
      ),
    ],
  },
  {
    version: 6,
    description:
      'unique claims in unique_claims ((app, class, bucket), field, value): many claims of one bucket are one lightweight transaction; unique_values loses its confirmed column (nodes of the version before can no longer claim there) and its claims are copied as pending ones',
    statements: (keyspace) => [
      createTable(
        keyspace,
        'unique_claims',
        `app_id text, class text, bucket int, field text, value text, object_id text, claim_id text, confirmed boolean,
         PRIMARY KEY ((app_id, class, bucket), field, value)`,
      ),
      `ALTER TABLE ${keyspace}.unique_values DROP IF EXISTS confirmed`,
    ],
    data: async (session, keyspace, renew) => {
      await moveClaims(session, keyspace, renew);
    },
  },
];

/** The schema version this code writes. */
export const cassandraSchemaVersion = cassandraMigrations.at(-1)?.version ?? 0;

/** Tables the migration machinery itself needs before any versioned step. */
export const bootstrapTables = ['schema_migrations', 'schema_lease'] as const;

export function bootstrapStatements(keyspace: string, replication: CassandraReplication): string[] {
  return [
    `CREATE KEYSPACE IF NOT EXISTS ${keyspace} WITH replication = ${replicationCql(replication)}`,
    createTable(keyspace, 'schema_migrations', 'version int PRIMARY KEY, description text, applied_at timestamp, applied_by text'),
    createTable(keyspace, 'schema_lease', 'name text PRIMARY KEY, holder text, taken_at timestamp'),
  ];
}

/** Answers the keyspace name when it is safe to write unquoted into CQL; throws otherwise. */
export function checkKeyspaceName(keyspace: string): string {
  if (!/^[a-z][a-z0-9_]{0,47}$/.test(keyspace)) {
    throw new Error(`invalid Cassandra keyspace name ${JSON.stringify(keyspace)}: use lower-case letters, digits and _, starting with a letter`);
  }
  return keyspace;
}

function replicationCql(replication: CassandraReplication): string {
  if (typeof replication === 'string') return replication;
  const entries = Object.entries(replication).map(([key, value]) => `${cqlString(key)}: ${typeof value === 'number' ? value : cqlString(value)}`);
  return `{${entries.join(', ')}}`;
}

function cqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

function createTable(keyspace: string, table: string, columns: string, options?: string): string {
  const withOptions = options === undefined ? '' : `${options} AND `;
  return `CREATE TABLE IF NOT EXISTS ${keyspace}.${table} (${columns}) WITH ${withOptions}ID = ${tableId(keyspace, table)}`;
}

/** A name-based (version 5 style) UUID: the same on every node, different for every keyspace. */
function tableId(keyspace: string, table: string): string {
  const bytes = createHash('sha1').update(`herald:${keyspace}.${table}`).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
