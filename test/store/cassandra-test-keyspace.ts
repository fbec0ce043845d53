import { randomBytes } from 'node:crypto';
import { Client } from 'cassandra-driver';
import { serviceEndpoints } from '../support/service-endpoints.ts';
import type { CassandraConnectionOptions } from '../../src/store/cassandra/cassandra-store-options.ts';

/** A keyspace name of its own for each test file or test. */
export function testKeyspace(): string {
  return `herald_test_${randomBytes(6).toString('hex')}`;
}

/** Connection options for the local test Cassandra. */
export function cassandraTestOptions(keyspace: string): CassandraConnectionOptions {
  return { ...serviceEndpoints.cassandra, keyspace };
}

/** A plain driver client for looking at (or tampering with) rows behind the store's back. */
export async function connectAdmin(): Promise<Client> {
  const client = new Client({ ...serviceEndpoints.cassandra, contactPoints: [...serviceEndpoints.cassandra.contactPoints], isMetadataSyncEnabled: false });
  await client.connect();
  return client;
}

export async function dropKeyspace(keyspace: string): Promise<void> {
  const admin = await connectAdmin();
  try {
    await admin.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`, [], { readTimeout: 60_000 });
  } finally {
    await admin.shutdown();
  }
}
