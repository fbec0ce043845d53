import { access, mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { quietKafkaRequestQueues } from '../../src/bus/kafka/idle-request-queue.ts';
import type { ClusterLayout, ClusterNode } from './cluster-layout.ts';
import { log4jProperties, newClusterId } from './kafka.ts';
import type { LocalService, Report } from './local-service.ts';
import type { ProcessSpec } from './managed-process.ts';
import { installMavenArtifacts } from './maven.ts';
import { runCommand } from './run-command.ts';
import { ServiceError } from './service-error.ts';
import { kafkaClusterArtifacts } from './service-versions.ts';

/**
 * One broker of the three-broker Kafka 3.9 cluster in KRaft mode: each node
 * is broker and controller (combined roles: three JVMs rather than six), the
 * three controllers one quorum, so any two of them elect the active one.
 * Topics default to replication 3 with min.insync.replicas 2, the internal
 * offsets topic too. Leaders move only when a broker goes (automatic
 * rebalancing off), so that the tests decide when leadership moves.
 */
export class KafkaClusterNode implements LocalService {
  readonly name: ClusterNode['name'];
  readonly host: string;
  readonly dir: string;
  readonly ports: readonly number[];
  readonly #node: ClusterNode;
  readonly #layout: ClusterLayout;
  readonly #java: string;
  readonly #mvn: string;

  constructor(node: ClusterNode, layout: ClusterLayout, tools: { java: string; mvn: string }) {
    this.#node = node;
    this.#layout = layout;
    this.#java = tools.java;
    this.#mvn = tools.mvn;
    this.name = node.name;
    this.host = node.host;
    this.dir = node.dir;
    this.ports = [layout.ports.broker, layout.ports.controller];
  }

  get brokerAddress(): string {
    return `${this.host}:${this.#layout.ports.broker}`;
  }

  async provision(report: Report): Promise<void> {
    await installMavenArtifacts({ service: 'cluster-kafka', dir: path.dirname(this.#layout.kafkaLib), artifacts: kafkaClusterArtifacts, mvn: this.#mvn, report });
    await mkdir(this.#file('conf'), { recursive: true });
    for (const [file, text] of await this.configFiles()) await writeFile(file, text);
    await this.#formatOnce(report);
  }

  configFiles(): Promise<ReadonlyMap<string, string>> {
    return Promise.resolve(
      new Map([
        [this.#file('conf', 'server.properties'), this.#serverProperties()],
        [this.#file('conf', 'log4j.properties'), log4jProperties],
      ]),
    );
  }

  command(): ProcessSpec {
    const heap = this.#layout.kafkaHeap;
    return {
      command: this.#java,
      args: [
        `-Xms${heap}`,
        `-Xmx${heap}`,
        '-XX:+UseG1GC',
        '-XX:+ExitOnOutOfMemoryError',
        '-Djava.awt.headless=true',
        `-Dlog4j.configuration=file:${this.#file('conf', 'log4j.properties')}`,
        '-cp',
        `${this.#layout.kafkaLib}/*`,
        'kafka.Kafka',
        this.#file('conf', 'server.properties'),
      ],
      cwd: this.dir,
    };
  }

  /** Ready when this broker answers a metadata request (the whole cluster is waited for by clusterUp). */
  async isReady(): Promise<string> {
    const admin = clusterAdmin([this.brokerAddress]);
    try {
      await admin.connect();
      const cluster = await admin.describeCluster();
      return `Kafka broker ${this.#node.index} of cluster ${cluster.clusterId} on ${this.brokerAddress}`;
    } finally {
      await admin.disconnect();
    }
  }

  /** `StorageTool format` once per data folder, with the id all three brokers share. */
  async #formatOnce(report: Report): Promise<void> {
    const data = this.#file('data');
    if (await exists(path.join(data, 'meta.properties'))) return;
    await mkdir(data, { recursive: true });
    const clusterId = await sharedClusterId(this.#layout.dir);
    report(`formatting KRaft storage (cluster id ${clusterId})`);
    const logFile = this.#file('format.log');
    await rm(logFile, { force: true });
    const args = [
      `-Dlog4j.configuration=file:${this.#file('conf', 'log4j.properties')}`,
      '-cp', `${this.#layout.kafkaLib}/*`,
      'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', this.#file('conf', 'server.properties'), '--ignore-formatted',
    ];
    const result = await runCommand(this.#java, args, { cwd: this.dir, logFile });
    if (result.code !== 0) throw await ServiceError.withLogTail(this.name, `kafka.tools.StorageTool format failed (${result.signal ?? `exit ${result.code}`})`, logFile);
  }

  #file(...parts: string[]): string {
    return path.join(this.dir, ...parts);
  }

  #serverProperties(): string {
    const { ports } = this.#layout;
    const voters = this.#layout.kafka.map((node) => `${node.index}@${node.host}:${ports.controller}`).join(',');
    return `# Written by scripts/services/kafka-cluster-node.ts on every start; edit that file instead.
process.roles=broker,controller
node.id=${this.#node.index}
controller.quorum.voters=${voters}
listeners=PLAINTEXT://${this.host}:${ports.broker},CONTROLLER://${this.host}:${ports.controller}
advertised.listeners=PLAINTEXT://${this.host}:${ports.broker}
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=${this.#file('data')}
num.partitions=1
default.replication.factor=3
min.insync.replicas=2
offsets.topic.replication.factor=3
offsets.topic.num.partitions=6
transaction.state.log.replication.factor=3
transaction.state.log.min.isr=2
group.initial.rebalance.delay.ms=0
unclean.leader.election.enable=false
auto.leader.rebalance.enable=false
# Three brokers share two cores with three Cassandra nodes: few threads each.
num.network.threads=2
num.io.threads=2
num.replica.fetchers=1
background.threads=2
log.cleaner.threads=1
`;
  }
}

/** An admin client of the cluster that says nothing and retries little, for the services tool and the tests' checks. */
export function clusterAdmin(brokers: readonly string[]) {
  quietKafkaRequestQueues();
  return new Kafka({
    clientId: 'herald-services-probe',
    brokers: [...brokers],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 2_000,
    requestTimeout: 10_000,
    retry: { retries: 2 },
  }).admin();
}

/** The cluster id every broker is formatted with, made once under the cluster folder. */
async function sharedClusterId(dir: string): Promise<string> {
  const file = path.join(dir, 'kafka-cluster-id');
  await mkdir(dir, { recursive: true });
  try {
    const handle = await open(file, 'wx');
    await handle.writeFile(`${newClusterId()}\n`);
    await handle.close();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return (await readFile(file, 'utf8')).trim();
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
