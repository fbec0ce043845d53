import { randomBytes } from 'node:crypto';
import { access, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { quietKafkaRequestQueues } from '../../src/bus/kafka/idle-request-queue.ts';
import { installMavenArtifacts } from './maven.ts';
import type { LocalService, Report } from './local-service.ts';
import type { ProcessSpec } from './managed-process.ts';
import { runCommand } from './run-command.ts';
import { ServiceError } from './service-error.ts';
import { kafkaArtifacts } from './service-versions.ts';

export interface KafkaServiceOptions {
  readonly dir: string;
  readonly host: string;
  readonly brokerPort: number;
  readonly controllerPort: number;
  readonly heap: string;
  readonly java: string;
  readonly mvn: string;
}

/** A single-node Kafka 3.9 in KRaft mode (broker and controller in one process), from `kafka_2.13`. */
export class KafkaService implements LocalService {
  readonly name = 'kafka';
  readonly dir: string;
  readonly ports: readonly number[];
  private readonly options: KafkaServiceOptions;

  constructor(options: KafkaServiceOptions) {
    this.options = options;
    this.dir = options.dir;
    this.ports = [options.brokerPort, options.controllerPort];
  }

  async provision(report: Report): Promise<void> {
    const { dir, mvn } = this.options;
    await installMavenArtifacts({ service: this.name, dir, artifacts: kafkaArtifacts, mvn, report });
    await mkdir(path.join(dir, 'conf'), { recursive: true });
    await writeFile(this.file('conf', 'server.properties'), this.serverProperties());
    await writeFile(this.file('conf', 'log4j.properties'), log4jProperties);
    await this.formatStorageOnce(report);
  }

  command(): ProcessSpec {
    return {
      command: this.options.java,
      args: [
        `-Xmx${this.options.heap}`,
        '-XX:+UseG1GC',
        '-Djava.awt.headless=true',
        `-Dlog4j.configuration=file:${this.file('conf', 'log4j.properties')}`,
        '-cp',
        `${this.file('lib')}/*`,
        'kafka.Kafka',
        this.file('conf', 'server.properties'),
      ],
      cwd: this.dir,
    };
  }

  /**
   * Ready when the broker answers a metadata request and the group
   * coordinator is available, which needs the offsets topic: the first
   * consumer group of a test would otherwise meet "coordinator not available".
   */
  async isReady(): Promise<string> {
    quietKafkaRequestQueues();
    const kafka = new Kafka({
      clientId: 'herald-services-probe',
      brokers: [`${this.options.host}:${this.options.brokerPort}`],
      logLevel: logLevel.NOTHING,
      connectionTimeout: 2_000,
      requestTimeout: 5_000,
      retry: { retries: 0 },
    });
    const admin = kafka.admin();
    try {
      await admin.connect();
      const cluster = await admin.describeCluster();
      await admin.describeGroups(['herald-services-probe']);
      return `Kafka cluster ${cluster.clusterId} on ${this.options.host}:${this.options.brokerPort}`;
    } finally {
      await admin.disconnect();
    }
  }

  /** `StorageTool format` once per data folder; meta.properties marks it formatted. */
  private async formatStorageOnce(report: Report): Promise<void> {
    const data = this.file('data');
    if (await exists(path.join(data, 'meta.properties'))) return;
    await mkdir(data, { recursive: true });
    const clusterId = newClusterId();
    report(`formatting KRaft storage (cluster id ${clusterId})`);
    const logFile = this.file('format.log');
    await rm(logFile, { force: true });
    const args = [
      `-Dlog4j.configuration=file:${this.file('conf', 'log4j.properties')}`,
      '-cp',
      `${this.file('lib')}/*`,
      'kafka.tools.StorageTool',
      'format',
      '-t',
      clusterId,
      '-c',
      this.file('conf', 'server.properties'),
      '--ignore-formatted',
    ];
    let result;
    try {
      result = await runCommand(this.options.java, args, { cwd: this.dir, logFile });
    } catch (error) {
      throw new ServiceError(this.name, `cannot run ${this.options.java} (${(error as Error).message}); install a JDK 17 or set JAVA_HOME`, { cause: error });
    }
    if (result.code !== 0) {
      throw await ServiceError.withLogTail(this.name, `kafka.tools.StorageTool format failed (${result.signal ?? `exit ${result.code}`})`, logFile);
    }
  }

  private file(...parts: string[]): string {
    return path.join(this.dir, ...parts);
  }

  private serverProperties(): string {
    const { host, brokerPort, controllerPort } = this.options;
    return `# Written by scripts/services/kafka.ts on every start; edit that file instead.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@${host}:${controllerPort}
listeners=PLAINTEXT://${host}:${brokerPort},CONTROLLER://${host}:${controllerPort}
advertised.listeners=PLAINTEXT://${host}:${brokerPort}
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=${this.file('data')}
num.partitions=1
# One broker: internal topics with a replication factor above 1 never come up.
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
`;
  }
}

/**
 * A cluster id as `kafka-storage.sh random-uuid` makes one: 16 random bytes,
 * URL-safe base64 without padding, never starting with "-" (it would read as
 * a command-line flag).
 */
function newClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

/** Everything to stdout, which the supervisor sends to kafka.log. */
const log4jProperties = `log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
`;
