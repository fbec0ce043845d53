import cassandraDriver from 'cassandra-driver';
import { Kafka, logLevel } from 'kafkajs';
import { quietKafkaRequestQueues } from '../../../src/bus/kafka/idle-request-queue.ts';
import { clusterNodeClient } from '../../../scripts/services/cassandra-cluster-node.ts';
import { clusterEndpoints } from '../../../scripts/services/cluster.ts';
import type { ClusterBackends } from '../../cluster/push-cluster.ts';
import { deleteTopics } from '../../support/test-backends.ts';

/** Where the replicated cluster of `npm run services -- cluster up` answers. */
export const replicated = clusterEndpoints();

/** Cassandra node n (1-3) and Kafka broker n, by address. */
export const cassandraNode = (n: 1 | 2 | 3): string => replicated.cassandra[n - 1] as string;
export const kafkaBroker = (n: 1 | 2 | 3): string => replicated.kafka[n - 1] as string;

/** A Herald cluster's state on the three Cassandra nodes (keyspace at replication 3) and three brokers. */
export function replicatedBackends(): ClusterBackends {
  return {
    // Three nodes share two cores with Kafka and six Herald processes: the nodes' own timeouts (8 s) answer before the driver gives up.
    store: { contactPoints: [...replicated.cassandra], localDataCenter: replicated.localDataCenter, replication: 3, requestTimeoutMs: 12_000 },
    bus: { brokers: [...replicated.kafka] },
    dropKeyspace: async (keyspace) => {
      const client = clusterClient();
      try {
        await client.connect();
        await client.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`, [], { readTimeout: 60_000 });
      } finally {
        await client.shutdown();
      }
    },
    deleteTopics: async (prefix) => {
      const admin = clusterKafka().admin();
      await admin.connect();
      try {
        await deleteTopics(admin, (await admin.listTopics()).filter((topic) => topic.startsWith(prefix)));
      } finally {
        await admin.disconnect();
      }
    },
  };
}

/** A driver client of the whole Cassandra cluster. */
export function clusterClient(): cassandraDriver.Client {
  const port = Number(cassandraNode(1).split(':')[1]);
  return new cassandraDriver.Client({
    contactPoints: [...replicated.cassandra],
    localDataCenter: replicated.localDataCenter,
    protocolOptions: { port, maxVersion: cassandraDriver.types.protocolVersion.v4 },
    isMetadataSyncEnabled: false,
  });
}

/** A driver client of Cassandra node n alone: what it answers is that node's. */
export function nodeClient(n: 1 | 2 | 3): cassandraDriver.Client {
  const [host, port] = cassandraNode(n).split(':') as [string, string];
  return clusterNodeClient(host, Number(port));
}

/** A kafkajs client of the three brokers that says nothing. */
export function clusterKafka(): Kafka {
  quietKafkaRequestQueues();
  return new Kafka({ clientId: 'herald-replicated-tests', brokers: [...replicated.kafka], logLevel: logLevel.NOTHING, retry: { retries: 8 } });
}
