import { randomBytes } from 'node:crypto';
import { access, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { quietKafkaRequestQueues } from '../../src/bus/kafka/idle-request-queue.ts';
import { installMavenArtifacts } from './maven.ts';
import type { LocalService, Report } from './local-service.ts';
import type { ProcessSpec } from './managed-process.ts';
import { runCommand } from './run-command.ts';
import { ensureSecuredCredentials, type ServiceUser } from './secured-credentials.ts';
import { ServiceError } from './service-error.ts';
import { kafkaArtifacts } from './service-versions.ts';
import { ensureTlsMaterial, securedTlsMaterial } from './test-ca.ts';

export interface KafkaServiceOptions {
  readonly dir: string;
  readonly host: string;
  readonly brokerPort: number;
  readonly controllerPort: number;
  /** The SASL_SSL listener: TLS, and SASL PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512. */
  readonly saslSslPort: number;
  /** The SSL listener, which requires a client certificate signed by the test CA. */
  readonly sslPort: number;
  /** The secured folder: the test CA's files and the users' passwords. */
  readonly securedDir: string;
  readonly heap: string;
  readonly java: string;
  readonly mvn: string;
}

/** The SCRAM mechanisms the SASL_SSL listener offers, each with a credential for the test user. */
const scramMechanisms = ['SCRAM-SHA-256', 'SCRAM-SHA-512'] as const;

/**
 * A single-node Kafka 3.9 in KRaft mode (broker and controller in one
 * process), from `kafka_2.13`. Beside the PLAINTEXT listener the suite uses,
 * one broker serves a SASL_SSL listener and an SSL listener that requires a
 * client certificate: listeners cost nothing, a second broker half a gigabyte.
 */
export class KafkaService implements LocalService {
  readonly name = 'kafka';
  readonly dir: string;
  readonly ports: readonly number[];
  private readonly options: KafkaServiceOptions;

  constructor(options: KafkaServiceOptions) {
    this.options = options;
    this.dir = options.dir;
    this.ports = [options.brokerPort, options.controllerPort, options.saslSslPort, options.sslPort];
  }

  async provision(report: Report): Promise<void> {
    const { dir, mvn } = this.options;
    await installMavenArtifacts({ service: this.name, dir, artifacts: kafkaArtifacts, mvn, report });
    await mkdir(path.join(dir, 'conf'), { recursive: true });
    await ensureTlsMaterial(securedTlsMaterial(this.options.securedDir).dir, report);
    for (const [file, text] of await this.configFiles()) await writeFile(file, text, { mode: 0o600 });
    await this.formatStorageOnce(report);
  }

  async configFiles(): Promise<ReadonlyMap<string, string>> {
    const { kafka } = await ensureSecuredCredentials(this.options.securedDir);
    return new Map([
      [this.file('conf', 'server.properties'), this.serverProperties(kafka)],
      [this.file('conf', 'log4j.properties'), log4jProperties],
    ]);
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

  /**
   * Gives the test user its SCRAM credentials, which live in the cluster's
   * metadata rather than in a config file: once, when a SCRAM login on the
   * SASL_SSL listener is refused, through kafka-configs (ConfigCommand) on the
   * plain listener, the password read from a file rather than the command line.
   */
  async afterReady(report: Report): Promise<void> {
    const { kafka } = await ensureSecuredCredentials(this.options.securedDir);
    const missing: (typeof scramMechanisms)[number][] = [];
    for (const mechanism of scramMechanisms) if (!(await this.scramLoginWorks(mechanism, kafka))) missing.push(mechanism);
    if (missing.length === 0) return;
    report(`giving user ${kafka.username} its ${missing.join(' and ')} credentials`);
    const configFile = this.file('conf', 'scram-user.properties');
    const logFile = this.file('kafka-configs.log');
    try {
      // One mechanism a run: ConfigCommand refuses two credentials of one user read from one file.
      for (const mechanism of missing) {
        await writeFile(configFile, `${mechanism}=iterations=8192,password=${kafka.password}\n`, { mode: 0o600 });
        const args = [
          `-Dlog4j.configuration=file:${this.file('conf', 'log4j.properties')}`,
          '-cp', `${this.file('lib')}/*`,
          'kafka.admin.ConfigCommand',
          '--bootstrap-server', `${this.options.host}:${this.options.brokerPort}`,
          '--alter', '--entity-type', 'users', '--entity-name', kafka.username,
          '--add-config-file', configFile,
        ];
        const result = await runCommand(this.options.java, args, { cwd: this.dir, logFile });
        if (result.code !== 0) throw await ServiceError.withLogTail(this.name, `kafka.admin.ConfigCommand failed (${result.signal ?? `exit ${result.code}`})`, logFile);
      }
    } finally {
      await rm(configFile, { force: true });
    }
    for (const mechanism of missing) {
      if (!(await this.scramLoginWorks(mechanism, kafka))) throw new ServiceError(this.name, `a ${mechanism} login of ${kafka.username} is still refused after setting its credentials`);
    }
  }

  /** Whether the test user can log in with `mechanism` on the SASL_SSL listener (credentials may take a moment to spread). */
  private async scramLoginWorks(mechanism: (typeof scramMechanisms)[number], user: ServiceUser): Promise<boolean> {
    const tls = securedTlsMaterial(this.options.securedDir);
    const admin = new Kafka({
      clientId: 'herald-services-probe',
      brokers: [`${this.options.host}:${this.options.saslSslPort}`],
      ssl: { ca: [await readFile(tls.caCert, 'utf8')] },
      sasl: mechanism === 'SCRAM-SHA-256' ? { mechanism: 'scram-sha-256', ...user } : { mechanism: 'scram-sha-512', ...user },
      logLevel: logLevel.NOTHING,
      connectionTimeout: 2_000,
      requestTimeout: 5_000,
      retry: { retries: 0 },
    }).admin();
    try {
      await admin.connect();
      return true;
    } catch (error) {
      if ((error as Error).name === 'KafkaJSSASLAuthenticationError') return false;
      throw new ServiceError(this.name, `the SASL_SSL listener on ${this.options.host}:${this.options.saslSslPort} does not answer: ${(error as Error).message}`, { cause: error });
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

  private serverProperties(user: ServiceUser): string {
    const { host, brokerPort, controllerPort, saslSslPort, sslPort } = this.options;
    const tls = securedTlsMaterial(this.options.securedDir);
    return `# Written by scripts/services/kafka.ts on every start; edit that file instead.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@${host}:${controllerPort}
listeners=PLAINTEXT://${host}:${brokerPort},CONTROLLER://${host}:${controllerPort},SASL_SSL://${host}:${saslSslPort},SSL://${host}:${sslPort}
advertised.listeners=PLAINTEXT://${host}:${brokerPort},SASL_SSL://${host}:${saslSslPort},SSL://${host}:${sslPort}
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL,SSL:SSL
# The secured listeners present the test CA's certificate (PEM, made by scripts/services/test-ca.ts).
ssl.keystore.type=PEM
ssl.keystore.location=${tls.serverKeystore}
ssl.truststore.type=PEM
ssl.truststore.location=${tls.caCert}
listener.name.ssl.ssl.client.auth=required
sasl.enabled.mechanisms=PLAIN,${scramMechanisms.join(',')}
# PLAIN users are listed here; SCRAM users live in the cluster metadata (afterReady).
listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_${user.username}="${user.password}";
${scramMechanisms.map((mechanism) => `listener.name.sasl_ssl.${mechanism.toLowerCase()}.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;`).join('\n')}
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
export function newClusterId(): string {
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
export const log4jProperties = `log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
`;
