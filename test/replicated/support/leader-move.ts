import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { clusterLayout } from '../../../scripts/services/cluster-layout.ts';
import { loadServicesOptions } from '../../../scripts/services/services-options.ts';
import { clusterKafka, kafkaBroker } from './replicated-backends.ts';

/** Each partition's leader, by partition. */
export type Leaders = Map<number, number>;

/** The leaders and replicas of `topic`'s partitions, as the brokers see them now. */
export async function partitionsOf(topic: string): Promise<{ partition: number; leader: number; replicas: number[]; isr: number[] }[]> {
  const admin = clusterKafka().admin();
  await admin.connect();
  try {
    const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
    return (metadata.topics[0]?.partitions ?? []).map(({ partitionId, leader, replicas, isr }) => ({ partition: partitionId, leader, replicas, isr })).sort((a, b) => a.partition - b.partition);
  } finally {
    await admin.disconnect();
  }
}

/**
 * Moves the leadership of every partition of `topic` to another broker, as
 * an operator would: the replica list reordered so that another broker comes
 * first (AlterPartitionReassignments, the same three brokers), then a
 * preferred-leader election (Kafka's own LeaderElectionCommand from
 * kafka-tools). Answers the leaders before and after.
 */
export async function moveLeaders(topic: string): Promise<{ before: Leaders; after: Leaders }> {
  const partitions = await partitionsOf(topic);
  const before: Leaders = new Map(partitions.map(({ partition, leader }) => [partition, leader]));
  const admin = clusterKafka().admin();
  await admin.connect();
  try {
    await admin.alterPartitionReassignments({
      topics: [
        {
          topic,
          partitionAssignment: partitions.map(({ partition, leader, replicas }) => {
            const sorted = [...replicas].sort((a, b) => a - b);
            // The broker after the leader comes first; the others keep their places after it.
            const preferred = sorted[(sorted.indexOf(leader) + 1) % sorted.length] as number;
            return { partition, replicas: [preferred, ...replicas.filter((broker) => broker !== preferred)] };
          }),
        },
      ],
    });
    for (;;) {
      const { topics } = await admin.listPartitionReassignments({ topics: [{ topic, partitions: partitions.map(({ partition }) => partition) }] });
      if (topics.every((entry) => entry.partitions.length === 0)) break;
      await delay(200);
    }
  } finally {
    await admin.disconnect();
  }
  const ids = partitions.map(({ partition }) => partition);
  await electPreferredLeaders(topic, ids);
  // The election answers before every broker's metadata says so, and a preferred replica not yet back in the ISR
  // is not elected: read until each partition is led by its first replica, electing once more after 10 s.
  const began = performance.now();
  let elected = false;
  for (;;) {
    const now = await partitionsOf(topic);
    const after: Leaders = new Map(now.map(({ partition, leader }) => [partition, leader]));
    if (now.every(({ leader, replicas }) => leader === replicas[0]) || performance.now() - began > 30_000) return { before, after };
    if (!elected && performance.now() - began > 10_000) {
      elected = true;
      await electPreferredLeaders(topic, ids);
    }
    await delay(250);
  }
}

/** Runs `kafka-leader-election --election-type PREFERRED` for the partitions, with the cluster's own kafka-tools. */
async function electPreferredLeaders(topic: string, partitions: number[]): Promise<void> {
  const options = loadServicesOptions();
  const layout = clusterLayout(options);
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-election-'));
  const file = path.join(dir, 'partitions.json');
  writeFileSync(file, JSON.stringify({ partitions: partitions.map((partition) => ({ topic, partition })) }));
  const args = ['-cp', `${layout.kafkaLib}/*`, 'org.apache.kafka.tools.LeaderElectionCommand', '--bootstrap-server', kafkaBroker(1), '--election-type', 'PREFERRED', '--path-to-json-file', file];
  const output: Buffer[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(options.java, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`LeaderElectionCommand exited ${code}: ${Buffer.concat(output).toString().slice(-2000)}`);
}
