import { afterAll, describe, expect, it } from 'vitest';
import { cassandraSchemaVersion } from '../../src/store/cassandra/cassandra-schema.ts';
import { connectAdmin, dropKeyspace, testKeyspace } from '../store/cassandra-test-keyspace.ts';
import { runHeraldCommand } from '../support/herald-process.ts';
import { clusterEnv } from './cluster-env.ts';

/** The JSON log line with `msg`, parsed. */
function logLine(output: string, msg: string): Record<string, unknown> {
  const line = output.split('\n').find((text) => text.includes(`"msg":"${msg}"`));
  if (line === undefined) throw new Error(`no "${msg}" line in:\n${output}`);
  return JSON.parse(line) as Record<string, unknown>;
}

describe('node src/main.ts migrate', () => {
  const keyspace = testKeyspace();
  const { env } = clusterEnv(keyspace);

  afterAll(async () => {
    await dropKeyspace(keyspace);
  }, 60_000);

  it('creates the keyspace at the current version, then finds nothing left to do', async () => {
    const first = await runHeraldCommand(['migrate'], env);
    expect(first.code, first.output).toBe(0);
    expect(logLine(first.output, 'store schema is current')).toMatchObject({ store: 'cassandra', version: cassandraSchemaVersion });
    expect((logLine(first.output, 'store schema is current').applied as number[]).length).toBeGreaterThan(0);
    expect(logLine(first.output, 'bus topics exist')).toMatchObject({ bus: 'kafka' });

    const admin = await connectAdmin();
    try {
      const tables = await admin.execute('SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?', [keyspace]);
      expect(tables.rows.map((row) => String(row.get('table_name'))).sort()).toEqual([
        'delivery_push_slices',
        'delivery_ranges',
        'delivery_slices',
        'installations',
        'installations_by_channel',
        'installations_by_registration',
        'installations_by_type',
        'objects',
        'push_records',
        'push_records_by_day',
        'push_records_by_notification',
        'push_results',
        'scheduled_pushes',
        'scheduled_pushes_due',
        'schema_lease',
        'schema_migrations',
        'store_settings',
        'tokens',
        'unique_claims',
        'unique_values',
      ]);
    } finally {
      await admin.shutdown();
    }

    const second = await runHeraldCommand(['migrate'], env);
    expect(second.code, second.output).toBe(0);
    expect(logLine(second.output, 'store schema is current')).toMatchObject({ applied: [], version: cassandraSchemaVersion });
  }, 120_000);

  it('refuses an unknown command with the usage and exit code 2', async () => {
    const result = await runHeraldCommand(['migrat'], env);
    expect(result.code).toBe(2);
    expect(result.output).toContain('herald migrate');
  });
});
