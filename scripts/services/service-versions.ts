import type { MavenArtifact } from './maven.ts';

/** The pinned versions of everything the local services run. Bump them here only. */
export const serviceVersions = Object.freeze({
  cassandra: '5.0.6',
  kafka: '3.9.1',
  /** The `slf4j-api` that kafka_2.13 3.9 depends on; the broker logs nothing without a binding. */
  slf4j: '1.7.36',
});

export const cassandraArtifacts: readonly MavenArtifact[] = Object.freeze([
  { groupId: 'org.apache.cassandra', artifactId: 'cassandra-all', version: serviceVersions.cassandra },
]);

export const kafkaArtifacts: readonly MavenArtifact[] = Object.freeze([
  { groupId: 'org.apache.kafka', artifactId: 'kafka_2.13', version: serviceVersions.kafka },
  { groupId: 'org.slf4j', artifactId: 'slf4j-reload4j', version: serviceVersions.slf4j },
]);

/** The cluster's brokers add kafka-tools: LeaderElectionCommand and ReassignPartitionsCommand, for controlled leader moves. */
export const kafkaClusterArtifacts: readonly MavenArtifact[] = Object.freeze([
  ...kafkaArtifacts,
  { groupId: 'org.apache.kafka', artifactId: 'kafka-tools', version: serviceVersions.kafka },
]);
