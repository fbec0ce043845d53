import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { types } from 'cassandra-driver';
import { describe, expect, it } from 'vitest';
import { topicReplication } from '../../src/bus/kafka/kafka-bus-options.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { nativePort } from '../../src/store/cassandra/cassandra-client.ts';
import { leveledSession, serialRead } from '../../src/store/cassandra/consistency-levels.ts';
import { cassandraConsistencyDefaults } from '../../src/config/cassandra-consistency.ts';
import type { CqlSession } from '../../src/store/cassandra/cassandra-client.ts';

const single = { HERALD_APP_ID: 'shop', HERALD_APP_KEY: 'app-key-123', HERALD_MASTER_KEY: 'master-key-123' };
const load = (env: Record<string, string>) => loadConfig({ env: { ...single, HERALD_DATA_DIR: mkdtempSync(join(tmpdir(), 'herald-config-')), ...env } }).config;
const cassandra = { HERALD_CASSANDRA_CONTACT_POINTS: '10.0.0.1:9042' };
const kafka = { HERALD_KAFKA_BROKERS: 'k1:9092' };

describe('replication and consistency settings', () => {
  it('reads and writes at LOCAL_QUORUM with LOCAL_SERIAL Paxos unless told otherwise', () => {
    expect(load(cassandra).store.consistency).toEqual({ read: 'LOCAL_QUORUM', write: 'LOCAL_QUORUM', serial: 'LOCAL_SERIAL' });
  });

  it('takes each consistency level from its variable', () => {
    const config = load({ ...cassandra, HERALD_CASSANDRA_READ_CONSISTENCY: 'QUORUM', HERALD_CASSANDRA_WRITE_CONSISTENCY: 'EACH_QUORUM', HERALD_CASSANDRA_SERIAL_CONSISTENCY: 'SERIAL' });
    expect(config.store.consistency).toEqual({ read: 'QUORUM', write: 'EACH_QUORUM', serial: 'SERIAL' });
  });

  it.each([
    ['HERALD_CASSANDRA_READ_CONSISTENCY', 'ONE'],
    ['HERALD_CASSANDRA_WRITE_CONSISTENCY', 'LOCAL_ONE'],
    ['HERALD_CASSANDRA_SERIAL_CONSISTENCY', 'LOCAL_QUORUM'],
  ])('refuses %s=%s, which would let a read miss an acknowledged write', (variable, level) => {
    expect(() => load({ ...cassandra, [variable]: level })).toThrow(new RegExp(variable));
  });

  it('makes topics idempotently, five requests in flight at most, and leaves their replication to the cluster unless told', () => {
    const { bus } = load(kafka);
    expect(bus).toMatchObject({ idempotentProducer: true, maxInFlightRequests: 5 });
    expect(bus.replicationFactor).toBeUndefined();
    expect(bus.minInsyncReplicas).toBeUndefined();
  });

  it('takes the topics’ replication and the producer’s settings from their variables', () => {
    const { bus } = load({
      ...kafka,
      HERALD_KAFKA_REPLICATION_FACTOR: '5',
      HERALD_KAFKA_MIN_INSYNC_REPLICAS: '3',
      HERALD_KAFKA_IDEMPOTENT_PRODUCER: 'false',
      HERALD_KAFKA_MAX_IN_FLIGHT_REQUESTS: '1',
    });
    expect(bus).toMatchObject({ replicationFactor: 5, minInsyncReplicas: 3, idempotentProducer: false, maxInFlightRequests: 1 });
  });

  it.each([
    [{ HERALD_KAFKA_MAX_IN_FLIGHT_REQUESTS: '6' }, /HERALD_KAFKA_MAX_IN_FLIGHT_REQUESTS/],
    [{ HERALD_KAFKA_REPLICATION_FACTOR: '2', HERALD_KAFKA_MIN_INSYNC_REPLICAS: '3' }, /min\.insync\.replicas above the replication factor/],
  ])('refuses %o', (env, message) => {
    expect(() => load({ ...kafka, ...env })).toThrow(message);
  });
});

describe('the replication of new topics', () => {
  it.each([
    [1, { replicationFactor: 1, minInsyncReplicas: 1 }],
    [2, { replicationFactor: 2, minInsyncReplicas: 1 }],
    [3, { replicationFactor: 3, minInsyncReplicas: 2 }],
    [7, { replicationFactor: 3, minInsyncReplicas: 2 }],
  ])('on %i brokers is %o by default', (brokers, expected) => {
    expect(topicReplication({ replicationFactor: undefined, minInsyncReplicas: undefined }, brokers)).toEqual(expected);
  });

  it('is what the settings say when they say it', () => {
    expect(topicReplication({ replicationFactor: 5, minInsyncReplicas: undefined }, 7)).toEqual({ replicationFactor: 5, minInsyncReplicas: 2 });
    expect(topicReplication({ replicationFactor: 3, minInsyncReplicas: 3 }, 3)).toEqual({ replicationFactor: 3, minInsyncReplicas: 3 });
  });
});

describe('the Cassandra session’s levels', () => {
  const recorded: { query: string; options: Record<string, unknown> }[] = [];
  const raw: CqlSession = {
    execute(query, _params, options) {
      recorded.push({ query, options: { ...options } });
      return Promise.resolve({} as types.ResultSet);
    },
    batch(statements, options) {
      recorded.push({ query: statements.map((statement) => statement.query).join('; '), options: { ...options } });
      return Promise.resolve({} as types.ResultSet);
    },
  };
  const session = leveledSession(raw, { read: 'QUORUM', write: 'ALL', serial: 'SERIAL' });
  const last = () => recorded.at(-1)?.options;

  it('reads at the read level, marked idempotent so the driver may ask another node', async () => {
    await session.execute('SELECT doc FROM t WHERE k = ?', ['a']);
    expect(last()).toMatchObject({ consistency: types.consistencies.quorum, serialConsistency: types.consistencies.serial, isIdempotent: true });
  });

  it('writes and runs lightweight transactions at the write level with the serial level for Paxos, never retried elsewhere', async () => {
    await session.execute('INSERT INTO t (k) VALUES (?) IF NOT EXISTS', ['a']);
    expect(last()).toMatchObject({ consistency: types.consistencies.all, serialConsistency: types.consistencies.serial, isIdempotent: false });
    await session.execute('  update t SET v = 1 WHERE k = ?', ['a']);
    expect(last()).toMatchObject({ consistency: types.consistencies.all });
  });

  it('writes a batch at the write level, its conditions at the serial level', async () => {
    await session.batch([{ query: 'INSERT INTO t (k) VALUES (?) IF NOT EXISTS', params: ['a'] }], { logged: false });
    expect(last()).toMatchObject({ consistency: types.consistencies.all, serialConsistency: types.consistencies.serial, logged: false });
  });

  it('reads that must see transactions settled at the configured serial level', async () => {
    await leveledSession(raw, cassandraConsistencyDefaults).execute('SELECT claim_id FROM t WHERE k = ?', ['a'], { consistency: serialRead });
    expect(last()).toMatchObject({ consistency: types.consistencies.localSerial });
  });
});

describe('the CQL port of discovered nodes', () => {
  it.each([
    [['10.0.0.1:29042', '10.0.0.2:29042'], 29042],
    [['cassandra-0.cassandra', 'cassandra-1:19042'], 19042],
    [['cassandra-0.cassandra'], 9042],
  ])('is %j → %i', (points, port) => {
    expect(nativePort(points)).toBe(port);
  });
});
