import type { ProcessSpec } from './managed-process.ts';

export const serviceNames = ['cassandra', 'kafka', 'redis', 'cassandra-secured'] as const;
export type ServiceName = (typeof serviceNames)[number];

export function isServiceName(name: string): name is ServiceName {
  return (serviceNames as readonly string[]).includes(name);
}

/** The nodes of the replicated cluster (`npm run services -- cluster …`), apart from the services above. */
export const clusterNodeNames = ['cassandra-1', 'cassandra-2', 'cassandra-3', 'kafka-1', 'kafka-2', 'kafka-3'] as const;
export type ClusterNodeName = (typeof clusterNodeNames)[number];

export function isClusterNodeName(name: string): name is ClusterNodeName {
  return (clusterNodeNames as readonly string[]).includes(name);
}

/** Progress lines for people watching `up` and `down`. */
export type Report = (line: string) => void;

/**
 * What each local service tells the supervisor, which does the rest
 * (pidfiles, port checks, waiting, stopping) the same way for all of them.
 */
export interface LocalService {
  readonly name: ServiceName | ClusterNodeName;
  /** The loopback address it listens on, when not the services' own (a cluster node's 127.0.0.N). */
  readonly host?: string;
  /** This service's own folder: artifacts, config, data, log and pidfile. */
  readonly dir: string;
  /** The loopback ports it listens on; `up` refuses to start while another process holds one. */
  readonly ports: readonly number[];
  /** Fetches what is missing and (re)writes the config files; cheap when everything is in place. */
  provision(report: Report): Promise<void>;
  /**
   * The config files `provision` writes, by absolute path, as they would be
   * written now. A running process whose files on disk differ was started
   * with older settings.
   */
  configFiles(): Promise<ReadonlyMap<string, string>>;
  /** The command line that runs it in the foreground. */
  command(): ProcessSpec;
  /** Resolves with a one-line description once it answers a real request; rejects until then. */
  isReady(): Promise<string>;
  /** Sets up what lives inside the running service (users, roles); idempotent, run after each `up` that finds it current. */
  afterReady?(report: Report): Promise<void>;
}
