import cassandraDriver from 'cassandra-driver';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cassandraLocalDataCenter, jdk17Flags, logbackXml } from './cassandra.ts';
import type { ClusterLayout, ClusterNode } from './cluster-layout.ts';
import type { LocalService, Report } from './local-service.ts';
import type { ProcessSpec } from './managed-process.ts';
import { installMavenArtifacts } from './maven.ts';
import { cassandraArtifacts } from './service-versions.ts';

/**
 * One token per node, evenly spread over Murmur3's range, so that each node
 * owns a third of the ring and, at replication 3, holds a replica of every row.
 */
const initialTokens = ['-9223372036854775808', '-3074457345618258603', '3074457345618258602'];

/**
 * One node of the three-node Cassandra 5.0 cluster: 127.0.0.<n>, every node a
 * seed (a node restarted while another is down still finds a peer to gossip
 * with), a fixed token, no bootstrap (the ring is formed empty). Hinted
 * handoff is on, as by default: a node that was down gets the writes it
 * missed from the others' hints when it is back.
 */
export class CassandraClusterNode implements LocalService {
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
    this.ports = [layout.ports.cql, layout.ports.storage];
  }

  async provision(report: Report): Promise<void> {
    await installMavenArtifacts({ service: 'cluster-cassandra', dir: path.dirname(this.#layout.cassandraLib), artifacts: cassandraArtifacts, mvn: this.#mvn, report });
    await mkdir(this.#file('conf'), { recursive: true });
    await mkdir(this.#file('tmp'), { recursive: true });
    for (const [file, text] of await this.configFiles()) await writeFile(file, text);
  }

  configFiles(): Promise<ReadonlyMap<string, string>> {
    return Promise.resolve(
      new Map([
        [this.#file('conf', 'cassandra.yaml'), this.#yaml()],
        [this.#file('conf', 'logback.xml'), logbackXml],
      ]),
    );
  }

  command(): ProcessSpec {
    const heap = this.#layout.cassandraHeap;
    return {
      command: this.#java,
      args: [
        `-Xms${heap}`,
        `-Xmx${heap}`,
        '-XX:+UseG1GC',
        '-XX:+ExitOnOutOfMemoryError',
        // Off-heap buffers (Netty, the chunk cache) bounded too: three nodes share a small machine.
        '-XX:MaxDirectMemorySize=256m',
        '-Djava.net.preferIPv4Stack=true',
        `-Dcassandra.config=file://${this.#file('conf', 'cassandra.yaml')}`,
        '-Dcassandra-foreground=yes',
        `-Dcassandra.storagedir=${this.#file('data')}`,
        `-Dcassandra.logdir=${this.#file('logs')}`,
        `-Dlogback.configurationFile=${this.#file('conf', 'logback.xml')}`,
        // Each node is ready once it answers CQL; the cluster is ready once every node writes at ALL (clusterUp).
        '-Dcassandra.skip_wait_for_gossip_to_settle=0',
        `-Djava.io.tmpdir=${this.#file('tmp')}`,
        ...jdk17Flags,
        '-cp',
        `${this.#layout.cassandraLib}/*`,
        'org.apache.cassandra.service.CassandraDaemon',
      ],
      cwd: this.dir,
    };
  }

  async isReady(): Promise<string> {
    const client = clusterNodeClient(this.host, this.#layout.ports.cql);
    try {
      await client.connect();
      const result = await client.execute('SELECT release_version FROM system.local');
      return `Cassandra ${String(result.first()?.get('release_version'))} on ${this.host}:${this.#layout.ports.cql}`;
    } finally {
      await client.shutdown();
    }
  }

  #file(...parts: string[]): string {
    return path.join(this.dir, ...parts);
  }

  #yaml(): string {
    const { ports } = this.#layout;
    const seeds = this.#layout.cassandra.map((node) => `${node.host}:${ports.storage}`).join(',');
    const data = this.#file('data');
    return `# Written by scripts/services/cassandra-cluster-node.ts on every start; edit that file instead.
cluster_name: herald-replicated
num_tokens: 1
initial_token: ${initialTokens[this.#node.index - 1]}
auto_bootstrap: false
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
endpoint_snitch: SimpleSnitch
commitlog_sync: periodic
commitlog_sync_period: 10000ms
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "${seeds}"
listen_address: ${this.host}
rpc_address: ${this.host}
storage_port: ${ports.storage}
start_native_transport: true
native_transport_port: ${ports.cql}
data_file_directories: [${JSON.stringify(path.join(data, 'data'))}]
commitlog_directory: ${JSON.stringify(path.join(data, 'commitlog'))}
saved_caches_directory: ${JSON.stringify(path.join(data, 'saved_caches'))}
hints_directory: ${JSON.stringify(path.join(data, 'hints'))}
cdc_raw_directory: ${JSON.stringify(path.join(data, 'cdc_raw'))}
auto_snapshot: false
# Paxos v2 (Cassandra 4.1 and later): two round trips for a lightweight transaction's write instead of four.
paxos_variant: v2
# Hints for a node that is down are kept for up to 3 hours (the default) and replayed when it is back.
hinted_handoff_enabled: true
max_hint_window: 3h
# Three nodes and a test suite share two cores: the same patient timeouts as the single node.
write_request_timeout: 8000ms
read_request_timeout: 8000ms
cas_contention_timeout: 5000ms
# Small caches: the data of a test run is small, memory is shared by six JVMs.
file_cache_size: 32MiB
key_cache_size: 8MiB
concurrent_compactors: 1
`;
  }
}

/** A driver client of one cluster node alone: discovered peers are ignored, so the answer is that node's. */
export function clusterNodeClient(host: string, port: number): cassandraDriver.Client {
  const { policies } = cassandraDriver;
  const endpoint = `${host}:${port}`;
  return new cassandraDriver.Client({
    contactPoints: [endpoint],
    localDataCenter: cassandraLocalDataCenter,
    protocolOptions: { port, maxVersion: cassandraDriver.types.protocolVersion.v4 },
    isMetadataSyncEnabled: false,
    socketOptions: { connectTimeout: 2_000, readTimeout: 10_000 },
    policies: { loadBalancing: new policies.loadBalancing.WhiteListPolicy(new policies.loadBalancing.DCAwareRoundRobinPolicy(cassandraLocalDataCenter), [endpoint]) },
  });
}
