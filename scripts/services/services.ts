import path from 'node:path';
import { CassandraService } from './cassandra.ts';
import { withDirLock } from './dir-lock.ts';
import { KafkaService } from './kafka.ts';
import { serviceNames, type LocalService, type Report, type ServiceName } from './local-service.ts';
import { RedisService } from './redis.ts';
import { ServicesError } from './service-error.ts';
import { logFileOf, ServiceSupervisor, type ServiceStatus, type UpResult } from './service-supervisor.ts';
import { loadServicesOptions, type ServicesOptions } from './services-options.ts';

export { serviceNames, type ServiceName } from './local-service.ts';
export type { ServiceStatus, UpResult } from './service-supervisor.ts';

/** How to act on the services. */
export interface ServicesContext {
  /** `loadServicesOptions(process.env)` when omitted. */
  readonly options?: ServicesOptions;
  /** Progress lines; silent when omitted. */
  readonly report?: Report;
}

/**
 * The services under `options.dir`, one folder each: Cassandra, Kafka and
 * Redis, open for the suite, Kafka and Redis also with secured listeners, and
 * a secured Cassandra. The secured ones share a test CA and users kept under
 * `secured/`.
 */
export function createLocalServices(options: ServicesOptions): Readonly<Record<ServiceName, LocalService>> {
  const { dir, host, ports, java, mvn } = options;
  const securedDir = securedFolder(options);
  const cassandraLib = path.join(dir, 'cassandra', 'lib');
  return {
    cassandra: new CassandraService({
      dir: path.join(dir, 'cassandra'),
      libDir: cassandraLib,
      host,
      nativePort: ports.cassandraNative,
      storagePort: ports.cassandraStorage,
      heap: options.cassandraHeap,
      java,
      mvn,
    }),
    kafka: new KafkaService({
      dir: path.join(dir, 'kafka'),
      host,
      brokerPort: ports.kafkaBroker,
      controllerPort: ports.kafkaController,
      saslSslPort: ports.kafkaSaslSsl,
      sslPort: ports.kafkaSsl,
      securedDir,
      heap: options.kafkaHeap,
      java,
      mvn,
    }),
    redis: new RedisService({ dir: path.join(dir, 'redis'), host, port: ports.redis, tlsPort: ports.redisTls, securedDir }),
    'cassandra-secured': new CassandraService({
      dir: path.join(dir, 'cassandra-secured'),
      libDir: cassandraLib,
      host,
      nativePort: ports.cassandraSecuredNative,
      storagePort: ports.cassandraSecuredStorage,
      heap: options.securedCassandraHeap,
      java,
      mvn,
      securedDir,
    }),
  };
}

/** The folder of the secured services' test CA, certificates and users' passwords. */
export function securedFolder(options: ServicesOptions): string {
  return path.join(options.dir, 'secured');
}

/**
 * Brings the named services up (all when none are named) and resolves once
 * each answers a real request. Idempotent: services already up are left as
 * they are. Rejects with a ServiceError (one service) or ServicesError
 * (several) whose message ends with each failed service's log tail.
 */
export async function servicesUp(names: readonly ServiceName[] = [], context: ServicesContext = {}): Promise<UpResult[]> {
  const { options, report, services, supervisor } = prepare(names, context);
  return withLock(options, report, async () => {
    const outcomes = await Promise.allSettled(services.map((service) => supervisor.up(service)));
    for (const outcome of outcomes) {
      if (outcome.status === 'fulfilled') {
        const { name, pid, outcome: how, detail, seconds, stale } = outcome.value;
        report(`${name}: ${how === 'started' ? `ready in ${seconds.toFixed(1)} s` : 'already up'}, pid ${pid}, ${detail}`);
        if (stale !== undefined) report(`${name}: ${stale}`);
      }
    }
    return settle(outcomes);
  });
}

/** Stops the named services that `up` started (all when none are named); nothing else is signalled. */
export async function servicesDown(
  names: readonly ServiceName[] = [],
  context: ServicesContext = {},
): Promise<{ name: LocalService['name']; pid: number | undefined }[]> {
  const { options, report, services, supervisor } = prepare(names, context);
  return withLock(options, report, async () => {
    const outcomes = await Promise.allSettled(
      services.map(async (service) => {
        const pid = await supervisor.down(service);
        report(`${service.name}: ${pid === undefined ? 'not running' : `stopped pid ${pid}`}`);
        return { name: service.name, pid };
      }),
    );
    return settle(outcomes);
  });
}

/** Whether each service runs and answers. */
export async function servicesStatus(names: readonly ServiceName[] = [], context: ServicesContext = {}): Promise<ServiceStatus[]> {
  const { services, supervisor } = prepare(names, context);
  return Promise.all(services.map((service) => supervisor.status(service)));
}

/** The log file of one service's process. */
export function serviceLogFile(name: ServiceName, options: ServicesOptions = loadServicesOptions()): string {
  return logFileOf(createLocalServices(options)[name]);
}

function prepare(names: readonly ServiceName[], context: ServicesContext) {
  const options = context.options ?? loadServicesOptions();
  const report = context.report ?? (() => undefined);
  const all = createLocalServices(options);
  const services = (names.length > 0 ? [...new Set(names)] : serviceNames).map((name) => all[name]);
  const supervisor = new ServiceSupervisor({
    host: options.host,
    readyTimeoutMs: options.readyTimeoutMs,
    stopGraceMs: options.stopGraceMs,
    report,
  });
  return { options, report, services, supervisor };
}

function withLock<T>(options: ServicesOptions, report: Report, task: () => Promise<T>): Promise<T> {
  return withDirLock(
    options.dir,
    // Long enough for another command's first Maven download plus a slow start.
    { timeoutMs: options.readyTimeoutMs + 15 * 60_000, onWait: (holder) => report(`waiting for another services command (pid ${holder})`) },
    task,
  );
}

function settle<T>(outcomes: PromiseSettledResult<T>[]): T[] {
  const errors = outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => toError(outcome.reason));
  if (errors.length > 1) throw new ServicesError(errors);
  if (errors[0]) throw errors[0];
  return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<T>).value);
}

function toError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}
