import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.ts';

const single = { HERALD_APP_ID: 'shop', HERALD_APP_KEY: 'app-key-123', HERALD_MASTER_KEY: 'master-key-123' };
const load = (env: Record<string, string>) => loadConfig({ env: { ...single, HERALD_DATA_DIR: mkdtempSync(join(tmpdir(), 'herald-config-')), ...env } }).config;

describe('backend configuration', () => {
  it('defaults to the embedded store, in-memory coordination and the in-process bus', () => {
    const config = load({});
    expect(config.store.kind).toBe('sqlite');
    expect(config.coordination.kind).toBe('memory');
    expect(config.bus.kind).toBe('memory');
    expect(config.store.sqliteSync).toBe('normal');
  });

  it('makes the embedded store fsync every commit when told to', () => {
    expect(load({ HERALD_SQLITE_SYNC: 'full' }).store.sqliteSync).toBe('full');
  });

  it('selects Cassandra, Redis and Kafka from the documented variables', () => {
    const config = load({
      HERALD_STORE: 'cassandra',
      HERALD_CASSANDRA_CONTACT_POINTS: '10.0.0.1:9042, 10.0.0.2',
      HERALD_CASSANDRA_KEYSPACE: 'herald_prod',
      HERALD_CASSANDRA_REPLICATION: 'dc1:3,dc2:2',
      HERALD_COORDINATION: 'redis',
      HERALD_REDIS_URL: 'redis://:secret@redis.internal:6379/2',
      HERALD_BUS: 'kafka',
      HERALD_KAFKA_BROKERS: 'k1:9092,k2:9092',
    });
    expect(config.store).toMatchObject({
      kind: 'cassandra',
      contactPoints: ['10.0.0.1:9042', '10.0.0.2'],
      keyspace: 'herald_prod',
      localDataCenter: 'datacenter1',
      replication: { dc1: 3, dc2: 2 },
    });
    expect(config.coordination).toMatchObject({ kind: 'redis', url: 'redis://:secret@redis.internal:6379/2', keyPrefix: 'herald:' });
    expect(config.bus).toMatchObject({ kind: 'kafka', brokers: ['k1:9092', 'k2:9092'], topics: { pushRequests: 6, pushTasks: 24 } });
  });

  it('takes the partition counts of the push topics from the environment', () => {
    const config = load({ HERALD_PUSH_REQUEST_PARTITIONS: '3', HERALD_PUSH_TASK_PARTITIONS: '96' });
    expect(config.bus.topics).toEqual({ pushRequests: 3, pushTasks: 96, pushOutcomes: 12 });
    expect(() => load({ HERALD_PUSH_TASK_PARTITIONS: '0' })).toThrow(/HERALD_PUSH_TASK_PARTITIONS \(bus\.topics\.pushTasks\)/);
  });

  it('infers a backend from its connection setting alone', () => {
    const config = load({ HERALD_REDIS_URL: 'redis://127.0.0.1:6379', HERALD_KAFKA_BROKERS: '127.0.0.1:9092', HERALD_CASSANDRA_CONTACT_POINTS: '127.0.0.1' });
    expect(config.coordination.kind).toBe('redis');
    expect(config.bus.kind).toBe('kafka');
    expect(config.store.kind).toBe('cassandra');
    expect(config.store.replication).toBe(1);
  });

  it.each([
    [{ HERALD_STORE: 'cassandra' }, /HERALD_CASSANDRA_CONTACT_POINTS \(store\.contactPoints\): required when the store is cassandra/],
    [{ HERALD_STORE: 'mongodb' }, /HERALD_STORE \(store\.kind\)/],
    [{ HERALD_SQLITE_SYNC: 'off' }, /HERALD_SQLITE_SYNC \(store\.sqliteSync\)/],
    [{ HERALD_COORDINATION: 'redis' }, /HERALD_REDIS_URL \(coordination\.url\): required/],
    [{ HERALD_REDIS_URL: 'http://redis:6379' }, /HERALD_REDIS_URL \(coordination\.url\): expected redis:\/\/ or rediss:\/\//],
    [{ HERALD_BUS: 'kafka' }, /HERALD_KAFKA_BROKERS \(bus\.brokers\): required/],
    [{ HERALD_KAFKA_BROKERS: 'k1:9092,bad host' }, /HERALD_KAFKA_BROKERS \(bus\.brokers\.1\): expected host or host:port/],
    [{ HERALD_CASSANDRA_CONTACT_POINTS: 'a', HERALD_CASSANDRA_REPLICATION: 'dc1=3' }, /HERALD_CASSANDRA_REPLICATION: expected a factor/],
    [{ HERALD_CASSANDRA_CONTACT_POINTS: 'a', HERALD_CASSANDRA_KEYSPACE: 'Herald-Prod' }, /HERALD_CASSANDRA_KEYSPACE \(store\.keyspace\)/],
  ])('refuses %o with a message naming the variable', (env, message) => {
    expect(() => load(env)).toThrow(message);
  });
});
