import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { compileConfig } from '../../src/config/load-config.ts';
import type { RawConfig } from '../../src/config/schema.ts';
import { silentLogger, type Logger } from '../../src/core/logger.ts';
import { startHerald, type RunningHerald } from '../../src/start-herald.ts';
import { ManualClock } from './manual-clock.ts';
import { serviceEndpoints } from './service-endpoints.ts';
import { deleteKafkaTopics, privateKafkaBus, sharedCassandraStore, testBackends } from './test-backends.ts';

type RawApp = NonNullable<RawConfig['apps']>[number];

export interface TestApp {
  id: string;
  key: string;
  masterKey: string;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  // Tests read whatever fields they expect; the wire is untyped JSON.
  body: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is, for malformed-body tests. */
  rawBody?: string | Buffer;
  session?: string;
  master?: boolean;
  app?: TestApp;
  headers?: Record<string, string>;
}

export interface TestHerald {
  baseUrl: string;
  /** The api role's gRPC port; undefined when gRPC is off or no api role runs. */
  grpcPort: number | undefined;
  app: TestApp;
  clock: ManualClock;
  dataDir: string;
  herald: RunningHerald;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  close(): Promise<void>;
}

/** Where login failures, locks, SMS limits and other shared counters live. */
export type TestCoordination = 'memory' | { redisUrl: string; keyPrefix: string };

export interface TestHeraldOptions {
  settings?: RawApp['settings'];
  mail?: RawApp['mail'];
  sms?: RawApp['sms'];
  /** The app's webhook endpoints. */
  webhooks?: RawApp['webhooks'];
  extraApps?: RawApp[];
  logger?: Logger;
  dataDir?: string;
  /** The app to serve, e.g. one another node already serves; default a new one with random keys. */
  app?: RawApp & TestApp;
  /** `memory` runs the embedded default whole (SQLite, in-process bus) in either project; default Redis in the distributed run. */
  coordination?: TestCoordination;
  /** Serve metrics and health on their own port (0: any free one). */
  internalPort?: number;
  /** The clock, to share one between nodes; default a new manual clock. */
  clock?: ManualClock;
  /** The store, e.g. Cassandra in a keyspace of the test's own; default SQLite in the data directory. */
  store?: RawConfig['store'];
  /** The app's APNs and FCM credentials. */
  push?: RawApp['push'];
  /** The push engine's settings (shards, slices, gateway clients). */
  engine?: RawConfig['push'];
  /** Roles to run; default all. */
  role?: string;
  /** The gRPC port; default 0 (a free one, never the 50051 of a real deployment); `off` for none. */
  grpcPort?: number | 'off';
  /** Header prefixes and signature window; default Herald's. */
  auth?: RawConfig['auth'];
  /** Start as `herald` does with no app configured: the app is the development app. */
  developmentKeys?: boolean;
  /** The web console's settings (accounts, port); default on at /console with no account. */
  console?: RawConfig['console'];
}

/** Shared coordination on the local Redis under a fresh key prefix, as several nodes of one deployment use it. */
export function redisCoordination(): TestCoordination {
  return { redisUrl: serviceEndpoints.redis.url, keyPrefix: `herald-test:${randomBytes(6).toString('hex')}:` };
}

/** Builds an app config with random keys. */
export function testApp(overrides: Partial<RawApp> = {}): RawApp & TestApp {
  return {
    id: `app${randomBytes(4).toString('hex')}`,
    key: randomBytes(12).toString('hex'),
    masterKey: randomBytes(16).toString('hex'),
    ...overrides,
  };
}

/**
 * Starts the whole service in this process on a free port, over a fresh data
 * directory and a manual clock: on the embedded backends, or — in the
 * distributed test project (HERALD_TEST_BACKENDS=distributed) — on Cassandra,
 * Redis and a Kafka of its own topics, unless the options name backends.
 */
export async function startTestHerald(options: TestHeraldOptions = {}): Promise<TestHerald> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'herald-test-'));
  const app =
    options.app ??
    testApp({ name: 'Test App', settings: options.settings ?? {}, mail: options.mail ?? {}, sms: options.sms ?? {}, push: options.push ?? {}, ...(options.webhooks === undefined ? {} : { webhooks: options.webhooks }) });
  const distributed = testBackends() === 'distributed';
  const coordination = options.coordination ?? (distributed ? redisCoordination() : 'memory');
  // In-memory coordination means the embedded default whole: beside Cassandra or Kafka a node refuses it.
  const shared = distributed && coordination !== 'memory';
  const shards = options.engine?.installationShards ?? 64;
  const store = options.store ?? (shared ? sharedCassandraStore(shards) : undefined);
  const bus = shared ? privateKafkaBus() : undefined;
  const config = compileConfig({
    role: options.role ?? 'all',
    port: 0,
    grpcPort: options.grpcPort ?? 0,
    host: '127.0.0.1',
    dataDir,
    apps: [app, ...(options.extraApps ?? [])],
    ...(coordination === 'memory' ? {} : { coordination: { kind: 'redis', url: coordination.redisUrl, keyPrefix: coordination.keyPrefix } }),
    ...(options.internalPort === undefined ? {} : { internalPort: options.internalPort }),
    ...(store === undefined ? {} : { store }),
    ...(bus === undefined ? {} : { bus }),
    ...(options.engine === undefined ? {} : { push: options.engine }),
    ...(options.auth === undefined ? {} : { auth: options.auth }),
    ...(options.console === undefined ? {} : { console: options.console }),
  });
  const clock = options.clock ?? new ManualClock();
  const herald = await startHerald(
    { ...config, publicUrl: 'http://127.0.0.1:0' },
    { logger: options.logger ?? silentLogger(), clock, facts: { developmentKeys: options.developmentKeys ?? false } },
  );
  const baseUrl = `http://127.0.0.1:${herald.port}`;
  // Links in mail must point at the real port, known only after listening.
  herald.runtime.accounts.publicUrl = baseUrl;

  const request = async (method: string, path: string, requestOptions: RequestOptions = {}): Promise<TestResponse> => {
    const target = requestOptions.app ?? app;
    const headers: Record<string, string> = {
      'X-SVC-Id': target.id,
      'X-SVC-Key': requestOptions.master ? `${target.masterKey},master` : target.key,
      ...(requestOptions.session ? { 'X-SVC-Session': requestOptions.session } : {}),
      ...requestOptions.headers,
    };
    let body: string | Buffer | undefined;
    if (requestOptions.rawBody !== undefined) body = requestOptions.rawBody;
    else if (requestOptions.body !== undefined) body = JSON.stringify(requestOptions.body);
    if (body !== undefined && !headers['Content-Type']) headers['Content-Type'] = 'application/json';
    const response = await fetch(`${baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    let parsed: TestResponse['body'];
    try {
      parsed = text ? (JSON.parse(text) as TestResponse['body']) : {};
    } catch {
      parsed = { raw: text };
    }
    return { status: response.status, headers: response.headers, body: parsed };
  };

  return {
    baseUrl,
    grpcPort: herald.grpcPort,
    app,
    clock,
    dataDir,
    herald,
    request,
    close: async () => {
      await herald.close();
      if (bus !== undefined) await deleteKafkaTopics(bus.topicPrefix);
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
