import { ConfigError } from '../config/load-config.ts';
import { rolesOf, type HeraldConfig, type RoleName } from '../config/schema.ts';

/** What the checks need to know beyond the config. */
export interface DeploymentFacts {
  /** No app was configured and development keys were made in the data directory. */
  developmentKeys: boolean;
}

/** The roles that produce and consume push work: with the in-process bus they must share one process. */
const busRoles: readonly RoleName[] = ['api', 'fanout', 'sender'];

/**
 * Refuses, before anything connects, a configuration that breaks as soon as
 * a second node runs: nodes on the embedded store or in-process bus (each
 * would have its own), in-memory coordination beside shared backends (locks,
 * limits and leases would not be shared), or development keys (each node
 * would make its own). Answers warnings for what works but is likely a
 * mistake; throws a ConfigError naming every problem otherwise.
 */
export function checkDeployment(config: HeraldConfig, facts: DeploymentFacts = { developmentKeys: false }): string[] {
  const roles = rolesOf(config.role);
  const oneProcess = busRoles.every((role) => roles.includes(role));
  const shared = config.store.kind === 'cassandra' || config.bus.kind === 'kafka' || config.coordination.kind === 'redis';
  const problems: string[] = [];
  const roleNote = `the roles ${roles.join(',')} (HERALD_ROLE=${config.role})`;
  if (!oneProcess && config.bus.kind === 'memory') {
    problems.push(`${roleNote} leave the others to other processes, but the in-process bus cannot reach them: set HERALD_KAFKA_BROKERS, or run every role here (HERALD_ROLE=all)`);
  }
  if (!oneProcess && config.store.kind === 'sqlite') {
    problems.push(`${roleNote} leave the others to other processes, but the embedded store (SQLite) belongs to this process: use Cassandra (HERALD_CASSANDRA_CONTACT_POINTS), or run every role here`);
  }
  if (config.coordination.kind === 'memory' && shared) {
    problems.push('in-memory coordination beside a shared store or bus: other nodes would not share login locks, code limits, flow control or the scheduler lease; set HERALD_REDIS_URL');
  }
  if (facts.developmentKeys && (shared || !oneProcess)) {
    problems.push('no app is configured, so this node made development keys of its own and every other node would make different ones: set HERALD_APP_ID, HERALD_APP_KEY and HERALD_MASTER_KEY (or apps in the config file) on every node');
  }
  if (problems.length > 0) {
    throw new ConfigError(`Refusing to start a configuration that breaks with more than one node:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
  }
  const warnings: string[] = [];
  if (!shared && !roles.includes('scheduler')) {
    warnings.push('no scheduler runs on the embedded backends: scheduled pushes wait and idle installations and old push records stay until one runs');
  }
  return warnings;
}
