import cassandraDriver from 'cassandra-driver';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { installMavenArtifacts } from './maven.ts';
import type { LocalService, Report } from './local-service.ts';
import type { ProcessSpec } from './managed-process.ts';
import { ensureSecuredCredentials } from './secured-credentials.ts';
import { cassandraArtifacts } from './service-versions.ts';
import { ensureTlsMaterial, securedTlsMaterial } from './test-ca.ts';

export interface CassandraServiceOptions {
  readonly dir: string;
  /** Where the Maven artifacts go; the open and the secured node share one copy. */
  readonly libDir: string;
  readonly host: string;
  readonly nativePort: number;
  readonly storagePort: number;
  readonly heap: string;
  readonly java: string;
  readonly mvn: string;
  /**
   * Makes this the secured node: CQL over TLS only, with a client
   * certificate required, the password authenticator and the test user. The
   * folder holds the test CA's files and the users' passwords.
   */
  readonly securedDir?: string;
}

/** The superuser Cassandra makes on the first start of a node with the password authenticator. */
const defaultSuperuser = { username: 'cassandra', password: 'cassandra' };

/** The data center SimpleSnitch puts a single node in; drivers must name it. */
export const cassandraLocalDataCenter = 'datacenter1';

/**
 * The JDK 17 module flags of Cassandra's own conf/jvm17-server.options
 * (JPMS and Netty sections): without them 5.0 fails at start-up on
 * inaccessible JDK internals.
 */
export const jdk17Flags = [
  '-Djdk.attach.allowAttachSelf=true',
  '--add-exports', 'java.base/jdk.internal.misc=ALL-UNNAMED',
  '--add-exports', 'java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED',
  '--add-exports', 'java.rmi/sun.rmi.registry=ALL-UNNAMED',
  '--add-exports', 'java.rmi/sun.rmi.server=ALL-UNNAMED',
  '--add-exports', 'java.sql/java.sql=ALL-UNNAMED',
  '--add-exports', 'java.base/java.lang.ref=ALL-UNNAMED',
  '--add-exports', 'jdk.unsupported/sun.misc=ALL-UNNAMED',
  '--add-exports', 'jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED',
  '--add-exports', 'jdk.attach/sun.tools.attach=ALL-UNNAMED',
  '--add-opens', 'java.base/java.lang.module=ALL-UNNAMED',
  '--add-opens', 'java.base/jdk.internal.loader=ALL-UNNAMED',
  '--add-opens', 'java.base/jdk.internal.ref=ALL-UNNAMED',
  '--add-opens', 'java.base/jdk.internal.reflect=ALL-UNNAMED',
  '--add-opens', 'java.base/jdk.internal.math=ALL-UNNAMED',
  '--add-opens', 'java.base/jdk.internal.module=ALL-UNNAMED',
  '--add-opens', 'java.base/jdk.internal.util.jar=ALL-UNNAMED',
  '--add-opens', 'jdk.management/com.sun.management.internal=ALL-UNNAMED',
  '--add-opens', 'java.base/sun.nio.ch=ALL-UNNAMED',
  '--add-opens', 'java.base/java.io=ALL-UNNAMED',
  '--add-opens', 'java.base/java.lang.reflect=ALL-UNNAMED',
  '--add-opens', 'jdk.compiler/com.sun.tools.javac=ALL-UNNAMED',
  '--add-opens', 'java.base/java.lang=ALL-UNNAMED',
  '--add-opens', 'java.base/java.util=ALL-UNNAMED',
  '-Dio.netty.tryReflectionSetAccessible=true',
  '-Dio.netty.allocator.useCacheForAllThreads=true',
  '-Dio.netty.allocator.maxOrder=11',
];

/**
 * A single-node Cassandra 5.0 from `cassandra-all`, run with
 * `CassandraDaemon`: the open node the suite uses, or the secured one.
 *
 * The secured node is a JVM of its own (about 1 GB resident with a 512 MB heap,
 * ready in 7-15 s): Cassandra's authenticator is node-wide, so the password
 * authenticator on the open node would make every other test log in.
 */
export class CassandraService implements LocalService {
  readonly name: 'cassandra' | 'cassandra-secured';
  readonly dir: string;
  readonly ports: readonly number[];
  private readonly options: CassandraServiceOptions;

  constructor(options: CassandraServiceOptions) {
    this.options = options;
    this.name = options.securedDir === undefined ? 'cassandra' : 'cassandra-secured';
    this.dir = options.dir;
    this.ports = [options.nativePort, options.storagePort];
  }

  async provision(report: Report): Promise<void> {
    const { libDir, mvn, securedDir } = this.options;
    await installMavenArtifacts({ service: 'cassandra', dir: path.dirname(libDir), artifacts: cassandraArtifacts, mvn, report });
    await mkdir(this.file('conf'), { recursive: true });
    await mkdir(this.file('tmp'), { recursive: true });
    if (securedDir !== undefined) await ensureTlsMaterial(securedTlsMaterial(securedDir).dir, report);
    for (const [file, text] of await this.configFiles()) await writeFile(file, text);
  }

  configFiles(): Promise<ReadonlyMap<string, string>> {
    return Promise.resolve(
      new Map([
        [this.file('conf', 'cassandra.yaml'), this.cassandraYaml()],
        [this.file('conf', 'logback.xml'), logbackXml],
      ]),
    );
  }

  command(): ProcessSpec {
    const { heap, java } = this.options;
    return {
      command: java,
      args: [
        `-Xms${heap}`,
        `-Xmx${heap}`,
        '-XX:+UseG1GC',
        // Dying on OutOfMemoryError beats limping on with corrupt state; `up` then reports the exit.
        '-XX:+ExitOnOutOfMemoryError',
        '-Djava.net.preferIPv4Stack=true',
        `-Dcassandra.config=file://${this.file('conf', 'cassandra.yaml')}`,
        '-Dcassandra-foreground=yes',
        `-Dcassandra.storagedir=${this.file('data')}`,
        `-Dcassandra.logdir=${this.file('logs')}`,
        `-Dlogback.configurationFile=${this.file('conf', 'logback.xml')}`,
        // One node: nobody to gossip with, so don't wait for gossip to settle.
        '-Dcassandra.skip_wait_for_gossip_to_settle=0',
        // JNA and Netty unpack native libraries here, which also works where /tmp is noexec.
        `-Djava.io.tmpdir=${this.file('tmp')}`,
        // The secured node's default superuser is made at once rather than 10 s after start.
        ...(this.options.securedDir === undefined ? [] : ['-Dcassandra.superuser_setup_delay_ms=0']),
        ...jdk17Flags,
        '-cp',
        `${this.options.libDir}/*`,
        'org.apache.cassandra.service.CassandraDaemon',
      ],
      cwd: this.dir,
    };
  }

  async isReady(): Promise<string> {
    const client = await this.client(defaultSuperuser);
    try {
      await client.connect();
      const result = await client.execute('SELECT release_version FROM system.local');
      const version: unknown = result.first()?.get('release_version');
      const secured = this.options.securedDir === undefined ? '' : ' (TLS with client certificates, password authenticator)';
      return `Cassandra ${String(version)} on ${this.options.host}:${this.options.nativePort}${secured}`;
    } finally {
      await client.shutdown();
    }
  }

  /**
   * On the secured node, the test user: a login role allowed to create
   * keyspaces, which makes it the owner of those it creates (all Herald
   * needs). Its password is set again each time, so it follows the
   * credentials file.
   */
  async afterReady(): Promise<void> {
    const { securedDir } = this.options;
    if (securedDir === undefined) return;
    const { cassandra } = await ensureSecuredCredentials(securedDir);
    const client = await this.client(defaultSuperuser);
    try {
      await client.connect();
      const role = `"${cassandra.username}"`;
      // CQL takes no bind marker for a password: a string literal, quotes doubled.
      const password = `'${cassandra.password.replaceAll("'", "''")}'`;
      await client.execute(`CREATE ROLE IF NOT EXISTS ${role} WITH LOGIN = true AND PASSWORD = ${password}`);
      await client.execute(`ALTER ROLE ${role} WITH PASSWORD = ${password}`);
      await client.execute(`GRANT CREATE ON ALL KEYSPACES TO ${role}`);
    } finally {
      await client.shutdown();
    }
  }

  /** A driver client for this node: on the secured one over TLS with the client certificate, as `user`. */
  private async client(user: { username: string; password: string }): Promise<cassandraDriver.Client> {
    const { securedDir } = this.options;
    const tls = securedDir === undefined ? undefined : securedTlsMaterial(securedDir);
    return new cassandraDriver.Client({
      contactPoints: [`${this.options.host}:${this.options.nativePort}`],
      localDataCenter: cassandraLocalDataCenter,
      isMetadataSyncEnabled: false,
      socketOptions: { connectTimeout: 2_000, readTimeout: 5_000 },
      // See src/store/cassandra/cassandra-client.ts: the v5 probe upsets the driver's stream ids over TLS.
      protocolOptions: { maxVersion: cassandraDriver.types.protocolVersion.v4 },
      ...(tls === undefined
        ? {}
        : {
            credentials: user,
            sslOptions: {
              ca: [await readFile(tls.caCert)],
              cert: await readFile(tls.clientCert),
              key: await readFile(tls.clientKey),
              rejectUnauthorized: true,
            },
          }),
    });
  }

  private file(...parts: string[]): string {
    return path.join(this.dir, ...parts);
  }

  private cassandraYaml(): string {
    const { host, nativePort, storagePort } = this.options;
    const data = this.file('data');
    return `# Written by scripts/services/cassandra.ts on every start; edit that file instead.
cluster_name: ${this.options.securedDir === undefined ? 'herald-local' : 'herald-local-secured'}
num_tokens: 1
initial_token: 0
auto_bootstrap: false
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
endpoint_snitch: SimpleSnitch
commitlog_sync: periodic
commitlog_sync_period: 10000ms
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "${host}:${storagePort}"
listen_address: ${host}
rpc_address: ${host}
storage_port: ${storagePort}
start_native_transport: true
native_transport_port: ${nativePort}
data_file_directories: [${JSON.stringify(path.join(data, 'data'))}]
commitlog_directory: ${JSON.stringify(path.join(data, 'commitlog'))}
saved_caches_directory: ${JSON.stringify(path.join(data, 'saved_caches'))}
hints_directory: ${JSON.stringify(path.join(data, 'hints'))}
cdc_raw_directory: ${JSON.stringify(path.join(data, 'cdc_raw'))}
# Tests drop and truncate tables all the time; snapshots of them would only fill the disk.
auto_snapshot: false
# This node shares a small machine with a whole test suite: under that load a lightweight transaction's Paxos
# rounds can take longer than a dedicated server's defaults (2 s writes, 1 s contention) allow. Still below the
# driver's 10 s client-side timeout, so a stuck request is reported by the server, not abandoned by the client.
write_request_timeout: 8000ms
read_request_timeout: 8000ms
cas_contention_timeout: 5000ms
${this.securedYaml()}`;
  }

  /** The secured node's authenticator and client encryption: TLS only, client certificates of the test CA required. */
  private securedYaml(): string {
    const { securedDir } = this.options;
    if (securedDir === undefined) return '';
    const tls = securedTlsMaterial(securedDir);
    return `authenticator:
  class_name: org.apache.cassandra.auth.PasswordAuthenticator
authorizer:
  class_name: org.apache.cassandra.auth.CassandraAuthorizer
role_manager:
  class_name: org.apache.cassandra.auth.CassandraRoleManager
client_encryption_options:
  enabled: true
  optional: false
  require_client_auth: true
  ssl_context_factory:
    class_name: org.apache.cassandra.security.PEMBasedSslContextFactory
  keystore: ${JSON.stringify(tls.serverKeystore)}
  truststore: ${JSON.stringify(tls.caCert)}
`;
  }
}

/** Everything to stdout, which the supervisor sends to cassandra.log. */
export const logbackXml = `<configuration>
  <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="STDOUT"/></root>
</configuration>
`;
