import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RawConfig } from '../../src/config/schema.ts';
import type { DeliveryTagger } from '../support/gateways/delivery-log.ts';
import { startHeraldProcess, type HeraldProcess } from '../support/herald-process.ts';
import { startPushGatewayFakes, type PushGatewayFakes } from '../support/push-gateways.ts';
import { serviceEndpoints } from '../support/service-endpoints.ts';
import { deleteKafkaTopics } from '../support/test-backends.ts';
import { dropKeyspace, testKeyspace } from '../store/cassandra-test-keyspace.ts';
import { ApiClient } from './api-client.ts';
import type { ClusterApp } from './cluster-env.ts';

/** The processes of the production shape, by name. */
export const clusterNodes = {
  'api-1': 'api',
  'api-2': 'api',
  'sender-1': 'sender',
  'sender-2': 'sender',
  fanout: 'fanout',
  scheduler: 'scheduler',
} as const;

export type ClusterNodeName = keyof typeof clusterNodes;

/** The engine settings the cluster runs with, for the tests' bounds. */
export interface ClusterSettings {
  sliceSize: number;
  senderConcurrency: number;
  installationShards: number;
  pushTaskPartitions: number;
  sessionTimeoutMs: number;
  /** Sends of one delivery in all, and the shortest total backoff between the first and the last. */
  retry: { maxAttempts: number; baseDelayMs: number; maxDelayMs: number };
}

/** Where the cluster keeps its state, and how to clean up after it; default the single-node services. */
export interface ClusterBackends {
  store: { contactPoints: string[]; localDataCenter: string; replication?: number; requestTimeoutMs?: number };
  bus: { brokers: string[] };
  dropKeyspace(keyspace: string): Promise<void>;
  deleteTopics(prefix: string): Promise<void>;
}

const singleNodeBackends: ClusterBackends = {
  store: { contactPoints: [...serviceEndpoints.cassandra.contactPoints], localDataCenter: 'datacenter1' },
  bus: { brokers: [...serviceEndpoints.kafka.brokers] },
  dropKeyspace,
  deleteTopics: deleteKafkaTopics,
};

export interface PushClusterOptions {
  /** Names the push of each accepted delivery, for per-push counts at the fakes. */
  tagger: DeliveryTagger;
  settings: ClusterSettings;
  /** Default: the single-node Cassandra and Kafka of `npm run services`. */
  backends?: ClusterBackends;
  /** More environment for some nodes (a clock set apart with libfaketime, say). */
  nodeEnv?: Partial<Record<ClusterNodeName, Record<string, string>>>;
}

interface RunningNode {
  process: HeraldProcess;
  /** Resolves once the process has gone. */
  exited: Promise<void>;
  /** Its exit code or signal, once it has gone. */
  exit: string | undefined;
  /** Set when the test killed or stopped it on purpose. */
  expectedExit: boolean;
}

/**
 * Herald's production shape on the local Cassandra, Redis and Kafka: two
 * `api`, two `sender`, one `fanout` and one `scheduler` process, each started
 * as `npm start` does from one config file (a keyspace, Kafka topic prefix
 * and Redis key prefix of their own), sending to the fake APNs and FCM of
 * this process. Nodes can be killed and started again by name.
 */
export class PushCluster {
  readonly app: ClusterApp;
  readonly fakes: PushGatewayFakes;
  readonly settings: ClusterSettings;
  /** The cluster's own keyspace, Kafka topic prefix and Redis key prefix. */
  readonly keyspace: string;
  readonly topicPrefix: string;
  readonly #backends: ClusterBackends;
  readonly #nodeEnv: Partial<Record<ClusterNodeName, Record<string, string>>>;
  readonly #env: Record<string, string>;
  readonly #nodes = new Map<ClusterNodeName, RunningNode>();

  static async start(options: PushClusterOptions): Promise<PushCluster> {
    const fakes = await startPushGatewayFakes({ apns: { record: 'count', tagger: options.tagger }, fcm: { record: 'count', tagger: options.tagger } });
    const cluster = new PushCluster(fakes, options.settings, options.backends ?? singleNodeBackends, options.nodeEnv ?? {});
    try {
      // The first node migrates the fresh keyspace; the others then find it current.
      await cluster.startNode('api-1');
      await Promise.all((['api-2', 'sender-1', 'sender-2', 'fanout', 'scheduler'] as const).map((name) => cluster.startNode(name)));
    } catch (error) {
      await cluster.close();
      throw error;
    }
    return cluster;
  }

  private constructor(fakes: PushGatewayFakes, settings: ClusterSettings, backends: ClusterBackends, nodeEnv: Partial<Record<ClusterNodeName, Record<string, string>>>) {
    this.fakes = fakes;
    this.settings = settings;
    this.#backends = backends;
    this.#nodeEnv = nodeEnv;
    const suffix = randomBytes(4).toString('hex');
    this.app = { id: `faults${suffix}`, key: randomBytes(12).toString('hex'), masterKey: randomBytes(16).toString('hex') };
    this.keyspace = testKeyspace();
    this.topicPrefix = `faults${suffix}.`;
    const dir = mkdtempSync(join(tmpdir(), 'herald-faults-'));
    const config: RawConfig = {
      logLevel: 'info',
      dataDir: dir,
      store: { kind: 'cassandra', ...backends.store, keyspace: this.keyspace },
      coordination: { kind: 'redis', url: serviceEndpoints.redis.url, keyPrefix: `${this.topicPrefix}:` },
      bus: {
        kind: 'kafka',
        brokers: [...backends.bus.brokers],
        topicPrefix: this.topicPrefix,
        sessionTimeoutMs: settings.sessionTimeoutMs,
        topics: { pushRequests: 2, pushTasks: settings.pushTaskPartitions },
      },
      push: fakes.engine({
        installationShards: settings.installationShards,
        sliceSize: settings.sliceSize,
        senderConcurrency: settings.senderConcurrency,
        // The shortest the scheduler allows, so a scheduled push leaves within a fraction of a second of its time.
        schedulerIntervalMs: 100,
        gateways: { requestTimeoutMs: 5000, retry: { ...settings.retry, maxRetryAfterMs: 5000 } },
      }),
      apps: [{ ...this.app, push: fakes.appPush }],
    };
    const configFile = join(dir, 'herald.json');
    writeFileSync(configFile, JSON.stringify(config));
    // Two api nodes on one host: each takes a free port for its gRPC API too.
    this.#env = { HERALD_CONFIG: configFile, HERALD_INTERNAL_PORT: '0', HERALD_GRPC_PORT: '0' };
  }

  /** The running process of `name`; throws when it is not running. */
  node(name: ClusterNodeName): HeraldProcess {
    const node = this.#nodes.get(name);
    if (node === undefined) throw new Error(`cluster node ${name} is not running`);
    return node.process;
  }

  /** A client of API node `name`. */
  api(name: 'api-1' | 'api-2'): ApiClient {
    return new ApiClient(this.node(name).port, this.app);
  }

  /** Starts `name` (again), with the same config as the others. */
  async startNode(name: ClusterNodeName): Promise<HeraldProcess> {
    if (this.#nodes.has(name)) throw new Error(`cluster node ${name} is already running`);
    const process = await startHeraldProcess({ ...this.#env, ...this.#nodeEnv[name], HERALD_ROLE: clusterNodes[name] });
    const node: RunningNode = { process, exited: Promise.resolve(), exit: undefined, expectedExit: false };
    node.exited = once(process.child, 'exit').then(([code, signal]) => {
      node.exit = String(signal ?? code);
    });
    this.#nodes.set(name, node);
    return process;
  }

  /** SIGKILLs `name` and waits until it has gone: a crash, nothing drained. */
  async kill(name: ClusterNodeName): Promise<void> {
    const node = this.#nodes.get(name);
    if (node === undefined) return;
    node.expectedExit = true;
    node.process.kill();
    await node.exited;
    this.#nodes.delete(name);
  }

  /**
   * Throws, naming them with the end of their output, when processes exited
   * that the test did not stop: a crash is a finding, never to be papered over.
   */
  assertRunning(): void {
    const gone: string[] = [];
    for (const [name, node] of this.#nodes) {
      if (node.exit !== undefined && !node.expectedExit) gone.push(`${name} exited (${node.exit}): ${node.process.stdout().slice(-2000)}`);
    }
    if (gone.length > 0) throw new Error(`cluster processes died: ${gone.join('\n')}`);
  }

  /** Log lines of `name` (JSON, one a line) whose message matches `pattern`. */
  logLines(name: ClusterNodeName, pattern: RegExp): string[] {
    return this.node(name)
      .stdout()
      .split('\n')
      .filter((line) => pattern.test(line));
  }

  /** Stops every node (SIGTERM, then SIGKILL after 10 s), the fakes, and drops the keyspace and topics. */
  async close(): Promise<void> {
    await Promise.all(
      [...this.#nodes.values()].map(async (node) => {
        node.expectedExit = true;
        const guard = setTimeout(() => node.process.kill(), 10_000);
        await node.process.stop().catch(() => undefined);
        clearTimeout(guard);
      }),
    );
    this.#nodes.clear();
    await this.fakes.close();
    await this.#backends.deleteTopics(this.topicPrefix).catch(() => undefined);
    await this.#backends.dropKeyspace(this.keyspace).catch(() => undefined);
  }
}
