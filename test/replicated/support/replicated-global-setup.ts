import { clusterDown, clusterMemory, clusterUp } from '../../../scripts/services/cluster.ts';
import { servicesUp } from '../../../scripts/services/services.ts';

/**
 * The replicated phase's globalSetup: the single-node Redis (coordination is
 * not what this phase tests) and the three-node Cassandra and Kafka cluster,
 * or the run fails with the nodes' log tails; nothing is skipped. The cluster
 * is stopped afterwards (it holds 4 GB), unless HERALD_KEEP_CLUSTER=1 keeps it
 * for the next run.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const report = (line: string) => process.stdout.write(`cluster: ${line}\n`);
  await servicesUp(['redis'], { report: (line) => process.stdout.write(`services: ${line}\n`) });
  const began = performance.now();
  await clusterUp([], { report });
  const memory = await clusterMemory();
  const total = memory.reduce((sum, node) => sum + node.rssBytes, 0);
  report(
    `ready in ${((performance.now() - began) / 1000).toFixed(1)} s; resident ${memory.map(({ name, rssBytes }) => `${name} ${(rssBytes / 2 ** 20).toFixed(0)} MiB`).join(', ')}; ${(total / 2 ** 30).toFixed(2)} GiB in all`,
  );
  return async () => {
    if (process.env.HERALD_KEEP_CLUSTER === '1') return;
    await clusterDown([], { report });
  };
}
