import cassandraDriver from 'cassandra-driver';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { installMavenArtifacts } from './maven.ts';
import type { LocalService, Report } from './local-service.ts';
import type { ProcessSpec } from './managed-process.ts';
import { cassandraArtifacts } from './service-versions.ts';

export interface CassandraServiceOptions {
  readonly dir: string;
  readonly host: string;
  readonly nativePort: number;
  readonly storagePort: number;
  readonly heap: string;
  readonly java: string;
  readonly mvn: string;
}

/** The data center SimpleSnitch puts a single node in; drivers must name it. */
export const cassandraLocalDataCenter = 'datacenter1';

/**
 * The JDK 17 module flags of Cassandra's own conf/jvm17-server.options
 * (JPMS and Netty sections): without them 5.0 fails at start-up on
 * inaccessible JDK internals.
 */
const jdk17Flags = [
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

/** A single-node Cassandra 5.0 from `cassandra-all`, run with `CassandraDaemon`. */
export class CassandraService implements LocalService {
  readonly name = 'cassandra';
  readonly dir: string;
  readonly ports: readonly number[];
  private readonly options: CassandraServiceOptions;

  constructor(options: CassandraServiceOptions) {
    this.options = options;
    this.dir = options.dir;
    this.ports = [options.nativePort, options.storagePort];
  }

  async provision(report: Report): Promise<void> {
    const { dir, mvn } = this.options;
    await installMavenArtifacts({ service: this.name, dir, artifacts: cassandraArtifacts, mvn, report });
    await mkdir(path.join(dir, 'conf'), { recursive: true });
    await mkdir(path.join(dir, 'tmp'), { recursive: true });
    await writeFile(this.file('conf', 'cassandra.yaml'), this.cassandraYaml());
    await writeFile(this.file('conf', 'logback.xml'), logbackXml);
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
        ...jdk17Flags,
        '-cp',
        `${this.file('lib')}/*`,
        'org.apache.cassandra.service.CassandraDaemon',
      ],
      cwd: this.dir,
    };
  }

  async isReady(): Promise<string> {
    const client = new cassandraDriver.Client({
      contactPoints: [`${this.options.host}:${this.options.nativePort}`],
      localDataCenter: cassandraLocalDataCenter,
      isMetadataSyncEnabled: false,
      socketOptions: { connectTimeout: 2_000, readTimeout: 5_000 },
    });
    try {
      await client.connect();
      const result = await client.execute('SELECT release_version FROM system.local');
      const version: unknown = result.first()?.get('release_version');
      return `Cassandra ${String(version)} on ${this.options.host}:${this.options.nativePort}`;
    } finally {
      await client.shutdown();
    }
  }

  private file(...parts: string[]): string {
    return path.join(this.dir, ...parts);
  }

  private cassandraYaml(): string {
    const { host, nativePort, storagePort } = this.options;
    const data = this.file('data');
    return `# Written by scripts/services/cassandra.ts on every start; edit that file instead.
cluster_name: herald-local
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
`;
  }
}

/** Everything to stdout, which the supervisor sends to cassandra.log. */
const logbackXml = `<configuration>
  <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="STDOUT"/></root>
</configuration>
`;
