import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { servicesUp } from '../../scripts/services/services.ts';
import { dropKeyspace } from '../../test/store/cassandra-test-keyspace.ts';
import { startHeraldProcess } from '../../test/support/herald-process.ts';
import { serviceEndpoints } from '../../test/support/service-endpoints.ts';

export const benchStores = ['sqlite', 'cassandra'] as const;
export type BenchStore = (typeof benchStores)[number];

export interface BenchApp {
  id: string;
  key: string;
  masterKey: string;
}

export interface BenchServer {
  port: number;
  close(): Promise<void>;
}

/**
 * Starts Herald as its own process, as `npm start` does: on a fresh data
 * directory for `sqlite`, or on the local Cassandra (a fresh keyspace) and
 * Redis for `cassandra`, which are brought up first.
 */
export async function startBenchServer(store: BenchStore, app: BenchApp): Promise<BenchServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-bench-'));
  const env: Record<string, string> = {
    PORT: '0',
    HOST: '127.0.0.1',
    HERALD_DATA_DIR: dataDir,
    HERALD_LOG_LEVEL: 'info',
    HERALD_APP_ID: app.id,
    HERALD_APP_KEY: app.key,
    HERALD_MASTER_KEY: app.masterKey,
  };
  let dropBenchKeyspace = (): Promise<void> => Promise.resolve();
  if (store === 'cassandra') {
    await servicesUp(['cassandra', 'redis']);
    const keyspace = `herald_bench_${randomBytes(4).toString('hex')}`;
    Object.assign(env, {
      HERALD_STORE: 'cassandra',
      HERALD_CASSANDRA_CONTACT_POINTS: serviceEndpoints.cassandra.contactPoints.join(','),
      HERALD_CASSANDRA_KEYSPACE: keyspace,
      HERALD_REDIS_URL: serviceEndpoints.redis.url,
    });
    dropBenchKeyspace = () => dropKeyspace(keyspace);
  }
  try {
    const herald = await startHeraldProcess(env);
    return {
      port: herald.port,
      close: async () => {
        await herald.stop();
        rmSync(dataDir, { recursive: true, force: true });
        await dropBenchKeyspace();
      },
    };
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    await dropBenchKeyspace();
    throw error;
  }
}
