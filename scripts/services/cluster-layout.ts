import path from 'node:path';
import type { ClusterNodeName } from './local-service.ts';
import { servicePortOffsetVariable } from './service-ports.ts';
import type { ServicesOptions } from './services-options.ts';

/** Where one node of the replicated cluster lives. */
export interface ClusterNode {
  readonly name: ClusterNodeName;
  /** 1, 2 or 3: the node's loopback address is 127.0.0.<index>. */
  readonly index: number;
  readonly host: string;
  readonly dir: string;
}

/** The replicated cluster: three Cassandra nodes and three Kafka brokers on 127.0.0.1-3, ports and folders apart from the single-node services. */
export interface ClusterLayout {
  /** `<services folder>/cluster`: the nodes' folders, their own copies of the Maven artifacts, the lock. */
  readonly dir: string;
  readonly cassandra: readonly ClusterNode[];
  readonly kafka: readonly ClusterNode[];
  /** Every node shares these ports, each on its own address (the Cassandra driver dials discovered peers on one port). */
  readonly ports: { readonly cql: number; readonly storage: number; readonly broker: number; readonly controller: number };
  readonly cassandraHeap: string;
  readonly kafkaHeap: string;
  /** The Cassandra library folder the three nodes share, and the Kafka one (which adds kafka-tools). */
  readonly cassandraLib: string;
  readonly kafkaLib: string;
}

/** Default ports of the cluster: beside the single-node services' 19xxx and 17000, never on them. */
export const defaultClusterPorts = Object.freeze({ cql: 29042, storage: 27000, broker: 29092, controller: 29093 });

/** Environment variables of the cluster, with their help; the CLI prints them. */
export const clusterEnvVariables: Readonly<Record<string, string>> = Object.freeze({
  HERALD_SERVICES_CLUSTER_CASSANDRA_HEAP: 'heap of each cluster Cassandra node, -Xms and -Xmx (default 512m)',
  HERALD_SERVICES_CLUSTER_KAFKA_HEAP: 'heap of each cluster Kafka broker, -Xms and -Xmx (default 256m)',
});

/** The cluster of `options`: its ports follow HERALD_SERVICES_PORT_OFFSET like the single-node services'. */
export function clusterLayout(options: ServicesOptions, env: NodeJS.ProcessEnv = process.env): ClusterLayout {
  const offset = Number(env[servicePortOffsetVariable]?.trim() || 0);
  const dir = path.join(options.dir, 'cluster');
  const node = (kind: 'cassandra' | 'kafka', index: number): ClusterNode => ({
    name: `${kind}-${index}` as ClusterNodeName,
    index,
    host: `127.0.0.${index}`,
    dir: path.join(dir, `${kind}-${index}`),
  });
  return Object.freeze({
    dir,
    cassandra: [1, 2, 3].map((index) => node('cassandra', index)),
    kafka: [1, 2, 3].map((index) => node('kafka', index)),
    ports: Object.freeze({
      cql: defaultClusterPorts.cql + offset,
      storage: defaultClusterPorts.storage + offset,
      broker: defaultClusterPorts.broker + offset,
      controller: defaultClusterPorts.controller + offset,
    }),
    cassandraHeap: readHeap(env, 'HERALD_SERVICES_CLUSTER_CASSANDRA_HEAP', '512m'),
    kafkaHeap: readHeap(env, 'HERALD_SERVICES_CLUSTER_KAFKA_HEAP', '256m'),
    cassandraLib: path.join(dir, 'cassandra-runtime', 'lib'),
    kafkaLib: path.join(dir, 'kafka-runtime', 'lib'),
  });
}

function readHeap(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+[kmg]$/i.test(raw)) throw new Error(`${name} must be a JVM size such as 512m or 1g, got "${raw}"`);
  return raw.toLowerCase();
}
