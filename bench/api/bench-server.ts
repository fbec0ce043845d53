import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import cassandra from 'cassandra-driver';
import { servicesUp } from '../../scripts/services/services.ts';
import { serviceHost, servicePorts } from '../../scripts/services/service-ports.ts';

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

const root = resolve(import.meta.dirname, '../..');

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
  let dropKeyspace = async (): Promise<void> => {};
  if (store === 'cassandra') {
    await servicesUp(['cassandra', 'redis']);
    const keyspace = `herald_bench_${randomBytes(4).toString('hex')}`;
    const contactPoint = `${serviceHost}:${servicePorts.cassandraNative}`;
    Object.assign(env, {
      HERALD_STORE: 'cassandra',
      HERALD_CASSANDRA_CONTACT_POINTS: contactPoint,
      HERALD_CASSANDRA_KEYSPACE: keyspace,
      HERALD_REDIS_URL: `redis://${serviceHost}:${servicePorts.redis}`,
    });
    dropKeyspace = async () => {
      const client = new cassandra.Client({ contactPoints: [contactPoint], localDataCenter: 'datacenter1' });
      try {
        await client.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
      } finally {
        await client.shutdown();
      }
    };
  }
  const child = spawn(process.execPath, [join(root, 'src/main.ts')], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await listeningPort(child);
    return {
      port,
      close: async () => {
        await stop(child);
        rmSync(dataDir, { recursive: true, force: true });
        await dropKeyspace();
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    await dropKeyspace();
    throw error;
  }
}

function listeningPort(child: ChildProcess): Promise<number> {
  let out = '';
  return new Promise((resolvePromise, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /"port":(\d+)[^\n]*"msg":"api listening"/.exec(out);
      if (match) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolvePromise(Number(match[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolvePromise) => {
    child.once('exit', () => resolvePromise());
    child.kill('SIGTERM');
  });
}
