import type { Client } from 'cassandra-driver';
import type { CqlSession } from '../../src/store/cassandra/cassandra-client.ts';
import { CassandraInstallationStore } from '../../src/store/cassandra/cassandra-installation-store.ts';
import { boundBytes, conformanceShards, type CountingInstallations } from './push-data-fixture.ts';

/**
 * A session on a plain client that prepares every statement, as the store's
 * client does, and counts the rows reads answer and the bytes of the values
 * bound to writes.
 */
export function countingSession(client: Client): { session: CqlSession; rows: () => number; bytes: () => number; statements: string[] } {
  let rows = 0;
  let bytes = 0;
  const statements: string[] = [];
  const session: CqlSession = {
    execute: async (query, params, options) => {
      const reading = /^\s*SELECT/i.test(query);
      if (!reading) bytes += boundBytes(params);
      const result = await client.execute(query, params, { prepare: true, ...options });
      statements.push(query);
      if (reading) rows += result.rowLength;
      return result;
    },
    batch: async (batched, options) => {
      for (const statement of batched) bytes += boundBytes(statement.params);
      const result = await client.batch(batched, { prepare: true, ...options });
      statements.push(...batched.map((statement) => statement.query));
      return result;
    },
  };
  return { session, rows: () => rows, bytes: () => bytes, statements };
}

/** The push-data conformance's counting installations on `keyspace`, through `client`. */
export function countingInstallations(client: Client, keyspace: string): CountingInstallations {
  let counted = countingSession(client);
  const installations = new CassandraInstallationStore(
    { execute: (query, params, options) => counted.session.execute(query, params, options), batch: (batched, options) => counted.session.batch(batched, options) },
    keyspace,
    conformanceShards,
  );
  return {
    installations,
    rowsRead: () => counted.rows(),
    bytesWritten: () => counted.bytes(),
    reset: () => {
      counted = countingSession(client);
    },
  };
}
