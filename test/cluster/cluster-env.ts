import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serviceEndpoints } from '../support/service-endpoints.ts';

export interface ClusterApp {
  id: string;
  key: string;
  masterKey: string;
}

/** A fresh app and the environment of an API node on the local Cassandra (keyspace of its own), Redis and Kafka. */
export function clusterEnv(keyspace: string): { app: ClusterApp; env: Record<string, string> } {
  const app = { id: `cluster-${randomBytes(4).toString('hex')}`, key: randomBytes(12).toString('hex'), masterKey: randomBytes(16).toString('hex') };
  const env = {
    HERALD_ROLE: 'api',
    HERALD_LOG_LEVEL: 'info',
    HERALD_DATA_DIR: mkdtempSync(join(tmpdir(), 'herald-cluster-')),
    HERALD_STORE: 'cassandra',
    HERALD_CASSANDRA_CONTACT_POINTS: serviceEndpoints.cassandra.contactPoints.join(','),
    HERALD_CASSANDRA_LOCAL_DC: serviceEndpoints.cassandra.localDataCenter,
    HERALD_CASSANDRA_KEYSPACE: keyspace,
    HERALD_REDIS_URL: serviceEndpoints.redis.url,
    HERALD_KAFKA_BROKERS: serviceEndpoints.kafka.brokers.join(','),
    HERALD_APP_ID: app.id,
    HERALD_APP_KEY: app.key,
    HERALD_MASTER_KEY: app.masterKey,
  };
  return { app, env };
}

/** A small client for one node. */
export function nodeClient(port: number, app: ClusterApp) {
  const headers = { 'X-SVC-Id': app.id, 'X-SVC-Key': app.key, 'Content-Type': 'application/json' };
  return async (method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: { ...headers, ...extraHeaders },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
}
