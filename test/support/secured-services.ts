import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { parseCredentials, type SecuredCredentials } from '../../scripts/services/secured-credentials.ts';
import { serviceHost, servicePorts } from '../../scripts/services/service-ports.ts';
import { loadServicesOptions } from '../../scripts/services/services-options.ts';
import { securedTlsMaterial, type TlsMaterial } from '../../scripts/services/test-ca.ts';

/**
 * The secured listeners of the local services (scripts/services/README.md,
 * "Secured listeners"), and the test CA's files and users' passwords they
 * were set up with.
 */
export const securedEndpoints = {
  /** The secured Cassandra node: TLS only, client certificate and password required. */
  cassandra: { contactPoints: [`${serviceHost}:${servicePorts.cassandraSecuredNative}`], localDataCenter: 'datacenter1' },
  kafka: {
    /** TLS with SASL PLAIN or SCRAM. */
    saslSsl: [`${serviceHost}:${servicePorts.kafkaSaslSsl}`],
    /** TLS with a client certificate required. */
    ssl: [`${serviceHost}:${servicePorts.kafkaSsl}`],
  },
  redis: { url: `rediss://${serviceHost}:${servicePorts.redisTls}` },
} as const;

/** What the secured services were set up with: the TLS files (paths) and the users. */
export interface SecuredServices {
  readonly tls: TlsMaterial;
  readonly credentials: SecuredCredentials;
}

/** The TLS files and users of the running services; fails naming the command that makes them. */
export function securedServices(): SecuredServices {
  const securedDir = path.join(loadServicesOptions().dir, 'secured');
  let credentials: SecuredCredentials | undefined;
  try {
    credentials = parseCredentials(readFileSync(path.join(securedDir, 'credentials.json'), 'utf8'));
  } catch {
    credentials = undefined;
  }
  if (credentials === undefined) throw new Error(`no secured services under ${securedDir}: start them with npm run services -- up`);
  return { tls: securedTlsMaterial(securedDir), credentials };
}

/**
 * Resolves once something accepts connections on each secured port of
 * `service`; otherwise fails saying that the service was started before it
 * had them, and how to restart it (`npm run services -- up` leaves a running
 * service alone).
 */
export async function expectSecuredListeners(service: 'kafka' | 'redis' | 'cassandra-secured'): Promise<void> {
  const ports = { kafka: [servicePorts.kafkaSaslSsl, servicePorts.kafkaSsl], redis: [servicePorts.redisTls], 'cassandra-secured': [servicePorts.cassandraSecuredNative] }[service];
  for (const port of ports) {
    if (!(await accepts(port))) {
      throw new Error(
        `nothing listens on ${serviceHost}:${port}, the secured port of the local ${service}: it runs with settings from before it had one. ` +
          `Restart it: npm run services -- down ${service} && npm run services -- up ${service}`,
      );
    }
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: serviceHost, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
