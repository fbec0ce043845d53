import { realpathSync } from 'node:fs';
import path from 'node:path';
import { resolveServicePorts, serviceHost, servicePortOffsetVariable, servicePortVariables, type ServicePorts } from './service-ports.ts';

/** Everything the local services tool needs to know, compiled once from the environment. */
export interface ServicesOptions {
  /** Absolute folder holding every service's artifacts, config, data, logs and pidfiles. */
  readonly dir: string;
  readonly host: string;
  readonly ports: ServicePorts;
  /** How long `up` waits for a started service to answer before failing. */
  readonly readyTimeoutMs: number;
  /** How long `down` waits after SIGTERM before SIGKILL. */
  readonly stopGraceMs: number;
  readonly cassandraHeap: string;
  /** Heap of the secured Cassandra, which holds only what the secured tests write. */
  readonly securedCassandraHeap: string;
  readonly kafkaHeap: string;
  /** The `java` and `mvn` commands to run. */
  readonly java: string;
  readonly mvn: string;
}

const repoRoot = path.resolve(import.meta.dirname, '..', '..');

/** The environment variables the tool reads, with their help; the CLI prints this list. */
export const servicesEnvVariables: Readonly<Record<string, string>> = Object.freeze({
  HERALD_SERVICES_DIR: 'folder of artifacts, data, logs and pidfiles (default .services in the repository)',
  [servicePortOffsetVariable]: 'added to every default port, to run a second set beside the first (default 0)',
  [servicePortVariables.cassandraNative]: 'Cassandra CQL port (default 19042)',
  [servicePortVariables.cassandraStorage]: 'Cassandra storage (gossip) port (default 17000)',
  [servicePortVariables.kafkaBroker]: 'Kafka broker port (default 19092)',
  [servicePortVariables.kafkaController]: 'Kafka KRaft controller port (default 19093)',
  [servicePortVariables.kafkaSaslSsl]: 'Kafka SASL_SSL listener (default 19094)',
  [servicePortVariables.kafkaSsl]: 'Kafka SSL listener requiring a client certificate (default 19095)',
  [servicePortVariables.redis]: 'Redis port (default 16379)',
  [servicePortVariables.redisTls]: 'Redis TLS port (default 16380)',
  [servicePortVariables.cassandraSecuredNative]: 'secured Cassandra CQL port, TLS only (default 19142)',
  [servicePortVariables.cassandraSecuredStorage]: 'secured Cassandra storage (gossip) port (default 17100)',
  HERALD_SERVICES_READY_TIMEOUT_SECONDS: 'how long up waits for each service to answer (default 180)',
  HERALD_SERVICES_CASSANDRA_HEAP: 'Cassandra heap, -Xms and -Xmx (default 1g)',
  HERALD_SERVICES_CASSANDRA_SECURED_HEAP: 'secured Cassandra heap, -Xms and -Xmx (default 512m)',
  HERALD_SERVICES_KAFKA_HEAP: 'Kafka heap, -Xmx (default 512m)',
  JAVA_HOME: 'JDK 17 or newer to run Cassandra and Kafka with (default: java on PATH)',
});

/** Reads the options from `env`; throws naming the variable when a value is unusable. */
export function loadServicesOptions(env: NodeJS.ProcessEnv = process.env): ServicesOptions {
  const javaHome = env.JAVA_HOME?.trim();
  return Object.freeze({
    dir: realPath(path.resolve(env.HERALD_SERVICES_DIR?.trim() || path.join(repoRoot, '.services'))),
    host: serviceHost,
    ports: resolveServicePorts(env),
    readyTimeoutMs: readSeconds(env, 'HERALD_SERVICES_READY_TIMEOUT_SECONDS', 180) * 1000,
    stopGraceMs: 30_000,
    cassandraHeap: readHeap(env, 'HERALD_SERVICES_CASSANDRA_HEAP', '1g'),
    securedCassandraHeap: readHeap(env, 'HERALD_SERVICES_CASSANDRA_SECURED_HEAP', '512m'),
    kafkaHeap: readHeap(env, 'HERALD_SERVICES_KAFKA_HEAP', '512m'),
    java: javaHome ? path.join(javaHome, 'bin', 'java') : 'java',
    mvn: 'mvn',
  });
}

/**
 * The folder with symbolic links resolved, so that checkouts sharing one
 * services folder through a link (a worktree's `.services`) start the same
 * command lines and recognise each other's processes as current.
 */
function realPath(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

function readSeconds(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(`${name} must be a positive number of seconds, got "${raw}"`);
  return seconds;
}

function readHeap(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+[kmg]$/i.test(raw)) throw new Error(`${name} must be a JVM size such as 768m or 1g, got "${raw}"`);
  return raw.toLowerCase();
}
