import { setTimeout as delay } from 'node:timers/promises';
import cassandraDriver from 'cassandra-driver';
import { CassandraClusterNode, clusterNodeClient } from './cassandra-cluster-node.ts';
import { clusterLayout, type ClusterLayout } from './cluster-layout.ts';
import { withDirLock } from './dir-lock.ts';
import { clusterAdmin, KafkaClusterNode } from './kafka-cluster-node.ts';
import { clusterNodeNames, type ClusterNodeName, type LocalService, type Report } from './local-service.ts';
import { ServiceError, ServicesError } from './service-error.ts';
import { logFileOf, ServiceSupervisor, type ServiceStatus, type UpResult } from './service-supervisor.ts';
import { loadServicesOptions, type ServicesOptions } from './services-options.ts';

export { clusterNodeNames, type ClusterNodeName } from './local-service.ts';

/** How to act on the cluster. */
export interface ClusterContext {
  /** `loadServicesOptions(process.env)` when omitted. */
  readonly options?: ServicesOptions;
  /** Progress lines; silent when omitted. */
  readonly report?: Report;
}

/** Where tests and Herald reach the cluster. */
export interface ClusterEndpoints {
  /** `host:port` of each Cassandra node. */
  readonly cassandra: readonly string[];
  /** `host:port` of each Kafka broker. */
  readonly kafka: readonly string[];
  readonly localDataCenter: string;
}

/** The six nodes of the replicated cluster, by name. */
export function createClusterNodes(options: ServicesOptions, layout: ClusterLayout = clusterLayout(options)): Readonly<Record<ClusterNodeName, CassandraClusterNode | KafkaClusterNode>> {
  const tools = { java: options.java, mvn: options.mvn };
  const nodes: Partial<Record<ClusterNodeName, CassandraClusterNode | KafkaClusterNode>> = {};
  for (const node of layout.cassandra) nodes[node.name] = new CassandraClusterNode(node, layout, tools);
  for (const node of layout.kafka) nodes[node.name] = new KafkaClusterNode(node, layout, tools);
  return nodes as Record<ClusterNodeName, CassandraClusterNode | KafkaClusterNode>;
}

/** The cluster's addresses, for Herald's config and the tests' own clients. */
export function clusterEndpoints(options: ServicesOptions = loadServicesOptions()): ClusterEndpoints {
  const layout = clusterLayout(options);
  return {
    cassandra: layout.cassandra.map((node) => `${node.host}:${layout.ports.cql}`),
    kafka: layout.kafka.map((node) => `${node.host}:${layout.ports.broker}`),
    localDataCenter: 'datacenter1',
  };
}

/**
 * Starts the named cluster nodes (all six when none are named) and resolves
 * once each answers; then, when all three of a kind run, once they form one
 * cluster: each Cassandra node coordinates a write at consistency ALL (it sees
 * the other two up and they answer), each broker lists all three and the
 * group coordinator answers. Idempotent, like `servicesUp`. Rejects, with
 * each failed node's log tail, when a node cannot start or the cluster does
 * not form within the ready timeout.
 */
export async function clusterUp(names: readonly ClusterNodeName[] = [], context: ClusterContext = {}): Promise<UpResult[]> {
  const { options, report, layout, nodes, supervisor } = prepare(context);
  const chosen = pick(nodes, names);
  return withDirLock(layout.dir, lockOptions(options, report), async () => {
    const outcomes = await Promise.allSettled(chosen.map((node) => supervisor.up(node)));
    for (const outcome of outcomes) {
      if (outcome.status !== 'fulfilled') continue;
      const { name, pid, outcome: how, detail, seconds } = outcome.value;
      report(`${name}: ${how === 'started' ? `ready in ${seconds.toFixed(1)} s` : 'already up'}, pid ${pid}, ${detail}`);
    }
    const results = settle(outcomes);
    const running = new Set((await Promise.all(Object.values(nodes).map(async (node) => ((await supervisor.status(node)).state === 'stopped' ? null : node.name)))).filter((name) => name !== null));
    const deadline = Date.now() + options.readyTimeoutMs;
    if (layout.cassandra.every((node) => running.has(node.name))) await formRing(layout, deadline, report);
    if (layout.kafka.every((node) => running.has(node.name))) await formBrokers(layout, deadline, report);
    return results;
  });
}

/**
 * Stops the named cluster nodes (all when none are named): SIGTERM and a
 * grace period, or with `kill` SIGKILL at once, a crash. Only processes this
 * tool started are signalled.
 */
export async function clusterDown(
  names: readonly ClusterNodeName[] = [],
  context: ClusterContext & { kill?: boolean } = {},
): Promise<{ name: ClusterNodeName; pid: number | undefined }[]> {
  const { options, report, layout, nodes, supervisor } = prepare(context);
  return withDirLock(layout.dir, lockOptions(options, report), async () => {
    const outcomes = await Promise.allSettled(
      pick(nodes, names).map(async (node) => {
        const pid = await supervisor.down(node, context.kill === true ? 'SIGKILL' : 'SIGTERM');
        report(`${node.name}: ${pid === undefined ? 'not running' : `${context.kill === true ? 'killed' : 'stopped'} pid ${pid}`}`);
        return { name: node.name, pid };
      }),
    );
    return settle(outcomes);
  });
}

/** Whether each cluster node runs and answers. */
export async function clusterStatus(context: ClusterContext = {}): Promise<ServiceStatus[]> {
  const { nodes, supervisor } = prepare(context);
  return Promise.all(Object.values(nodes).map((node) => supervisor.status(node)));
}

/** The log file of one cluster node. */
export function clusterLogFile(name: ClusterNodeName, options: ServicesOptions = loadServicesOptions()): string {
  return logFileOf(createClusterNodes(options)[name]);
}

/** Resident memory of each running cluster node, in bytes (VmRSS), for the run's report. */
export async function clusterMemory(context: ClusterContext = {}): Promise<{ name: ClusterNodeName; rssBytes: number }[]> {
  const statuses = await clusterStatus(context);
  const { readFile } = await import('node:fs/promises');
  const rows: { name: ClusterNodeName; rssBytes: number }[] = [];
  for (const status of statuses) {
    if (status.pid === undefined) continue;
    const text = await readFile(`/proc/${status.pid}/status`, 'utf8').catch(() => '');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(text)?.[1] ?? 0);
    rows.push({ name: status.name as ClusterNodeName, rssBytes: kb * 1024 });
  }
  return rows;
}

function prepare(context: ClusterContext) {
  const options = context.options ?? loadServicesOptions();
  const report = context.report ?? (() => undefined);
  const layout = clusterLayout(options);
  const nodes = createClusterNodes(options, layout);
  const supervisor = new ServiceSupervisor({ host: options.host, readyTimeoutMs: options.readyTimeoutMs, stopGraceMs: options.stopGraceMs, report });
  return { options, report, layout, nodes, supervisor };
}

function pick(nodes: Readonly<Record<ClusterNodeName, LocalService & { name: ClusterNodeName }>>, names: readonly ClusterNodeName[]): (LocalService & { name: ClusterNodeName })[] {
  return (names.length > 0 ? [...new Set(names)] : clusterNodeNames).map((name) => nodes[name]);
}

function lockOptions(options: ServicesOptions, report: Report) {
  return { timeoutMs: options.readyTimeoutMs + 15 * 60_000, onWait: (holder: number) => report(`waiting for another cluster command (pid ${holder})`) };
}

const probeKeyspace = 'herald_cluster_probe';

/** Waits until every Cassandra node coordinates a write at ALL: each sees the others up, and they answer it. */
async function formRing(layout: ClusterLayout, deadline: number, report: Report): Promise<void> {
  const began = Date.now();
  await until(deadline, 'cassandra', 'the three Cassandra nodes did not form a ring', async () => {
    for (const node of layout.cassandra) {
      const client = clusterNodeClient(node.host, layout.ports.cql);
      try {
        await client.connect();
        await client.execute(`CREATE KEYSPACE IF NOT EXISTS ${probeKeyspace} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}`);
        await client.execute(`CREATE TABLE IF NOT EXISTS ${probeKeyspace}.writes (node text PRIMARY KEY, at timestamp)`);
        await client.execute(`INSERT INTO ${probeKeyspace}.writes (node, at) VALUES (?, toTimestamp(now()))`, [node.name], {
          prepare: true,
          consistency: cassandraDriver.types.consistencies.all,
        });
      } finally {
        await client.shutdown();
      }
    }
  });
  report(`cassandra: three nodes in one ring, each writing at ALL (${((Date.now() - began) / 1000).toFixed(1)} s)`);
}

/** Waits until each broker lists all three and the group coordinator (the replicated offsets topic) answers. */
async function formBrokers(layout: ClusterLayout, deadline: number, report: Report): Promise<void> {
  const began = Date.now();
  const addresses = layout.kafka.map((node) => `${node.host}:${layout.ports.broker}`);
  await until(deadline, 'kafka', 'the three Kafka brokers did not form a cluster', async () => {
    for (const address of addresses) {
      const admin = clusterAdmin([address]);
      try {
        await admin.connect();
        const { brokers } = await admin.describeCluster();
        if (brokers.length !== addresses.length) throw new Error(`${address} lists ${brokers.length} brokers`);
        await admin.describeGroups(['herald-services-probe']);
      } finally {
        await admin.disconnect();
      }
    }
  });
  report(`kafka: three brokers in one cluster, group coordinator answering (${((Date.now() - began) / 1000).toFixed(1)} s)`);
}

async function until(deadline: number, service: string, failure: string, attempt: () => Promise<void>): Promise<void> {
  let last: unknown;
  for (;;) {
    try {
      await attempt();
      return;
    } catch (error) {
      last = error;
    }
    if (Date.now() >= deadline) throw new ServiceError(service, `${failure} in time (last attempt: ${last instanceof Error ? last.message : String(last)})`);
    await delay(1000);
  }
}

function settle<T>(outcomes: PromiseSettledResult<T>[]): T[] {
  const errors = outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => (outcome.reason instanceof Error ? outcome.reason : new Error(String(outcome.reason))));
  if (errors.length > 1) throw new ServicesError(errors);
  if (errors[0]) throw errors[0];
  return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<T>).value);
}
