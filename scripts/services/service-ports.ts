/** The loopback ports of the local services, by role. */
export interface ServicePorts {
  readonly cassandraNative: number;
  readonly cassandraStorage: number;
  readonly kafkaBroker: number;
  readonly kafkaController: number;
  /** Kafka's SASL_SSL listener: TLS and SASL PLAIN or SCRAM. */
  readonly kafkaSaslSsl: number;
  /** Kafka's SSL listener, which requires a client certificate. */
  readonly kafkaSsl: number;
  readonly redis: number;
  /** Redis's TLS port, beside the plain one. */
  readonly redisTls: number;
  /** CQL of the secured Cassandra: TLS only, a client certificate and a password required. */
  readonly cassandraSecuredNative: number;
  readonly cassandraSecuredStorage: number;
}

/**
 * Default loopback ports of the local services that `npm run services` starts
 * for development and tests. They are deliberately not the defaults (9042,
 * 9092, 6379), so a Cassandra, Kafka or Redis the developer already runs is
 * never touched.
 */
export const defaultServicePorts: ServicePorts = Object.freeze({
  cassandraNative: 19042,
  cassandraStorage: 17000,
  kafkaBroker: 19092,
  kafkaController: 19093,
  kafkaSaslSsl: 19094,
  kafkaSsl: 19095,
  redis: 16379,
  redisTls: 16380,
  cassandraSecuredNative: 19142,
  cassandraSecuredStorage: 17100,
});

/** Environment variable that sets one port outright (it wins over the offset). */
export const servicePortVariables: Readonly<Record<keyof ServicePorts, string>> = Object.freeze({
  cassandraNative: 'HERALD_SERVICES_CASSANDRA_PORT',
  cassandraStorage: 'HERALD_SERVICES_CASSANDRA_STORAGE_PORT',
  kafkaBroker: 'HERALD_SERVICES_KAFKA_PORT',
  kafkaController: 'HERALD_SERVICES_KAFKA_CONTROLLER_PORT',
  kafkaSaslSsl: 'HERALD_SERVICES_KAFKA_SASL_SSL_PORT',
  kafkaSsl: 'HERALD_SERVICES_KAFKA_SSL_PORT',
  redis: 'HERALD_SERVICES_REDIS_PORT',
  redisTls: 'HERALD_SERVICES_REDIS_TLS_PORT',
  cassandraSecuredNative: 'HERALD_SERVICES_CASSANDRA_SECURED_PORT',
  cassandraSecuredStorage: 'HERALD_SERVICES_CASSANDRA_SECURED_STORAGE_PORT',
});

/** Environment variable added to every default port, to run a second set beside the first. */
export const servicePortOffsetVariable = 'HERALD_SERVICES_PORT_OFFSET';

/**
 * The ports the environment asks for: each default shifted by
 * `HERALD_SERVICES_PORT_OFFSET`, unless its own variable names a port.
 * Throws naming the variable when a value is not a usable port.
 */
export function resolveServicePorts(env: NodeJS.ProcessEnv): ServicePorts {
  const offset = readInteger(env, servicePortOffsetVariable) ?? 0;
  const ports = {} as Record<keyof ServicePorts, number>;
  for (const key of Object.keys(defaultServicePorts) as (keyof ServicePorts)[]) {
    const variable = servicePortVariables[key];
    const port = readInteger(env, variable) ?? defaultServicePorts[key] + offset;
    if (port < 1 || port > 65535) {
      throw new Error(`${variable} resolves to ${port}, which is not a TCP port (check ${variable} and ${servicePortOffsetVariable})`);
    }
    ports[key] = port;
  }
  const taken = new Map<number, string>();
  for (const [key, port] of Object.entries(ports)) {
    const other = taken.get(port);
    if (other) throw new Error(`${servicePortVariables[key as keyof ServicePorts]} and ${other} both resolve to port ${port}`);
    taken.set(port, servicePortVariables[key as keyof ServicePorts]);
  }
  return Object.freeze(ports);
}

function readInteger(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  if (!/^-?\d+$/.test(raw)) throw new Error(`${name} must be an integer, got "${raw}"`);
  return Number(raw);
}

/** The ports of this process's environment, read once when first imported. */
export const servicePorts: ServicePorts = resolveServicePorts(process.env);

export const serviceHost = '127.0.0.1';
