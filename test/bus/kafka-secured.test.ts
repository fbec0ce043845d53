import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quietKafkaRequestQueues } from '../../src/bus/kafka/idle-request-queue.ts';
import { KafkaBus } from '../../src/bus/kafka/kafka-bus.ts';
import type { BusConfig } from '../../src/config/backends-schema.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { silentLogger } from '../../src/core/logger.ts';
import type { Bus } from '../../src/core/ports/bus.ts';
import { BackendStartError } from '../../src/runtime/backend-start-error.ts';
import { kafkaBusOptions, openBus } from '../../src/runtime/open-bus.ts';
import { runHeraldCommand } from '../support/herald-process.ts';
import { memoryLogger } from '../support/memory-logger.ts';
import { expectSecuredListeners, securedEndpoints, securedServices } from '../support/secured-services.ts';
import { serviceEndpoints } from '../support/service-endpoints.ts';
import { deleteTopics } from '../support/test-backends.ts';
import { describeBusConformance } from './bus-conformance.ts';

/**
 * Herald on the local Kafka's secured listeners (scripts/services): SASL_SSL
 * with PLAIN and SCRAM users, and SSL with a client certificate required,
 * set up through the documented variables as an operator would.
 */
const { tls, credentials } = securedServices();
const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-kafka-secured-'));
const passwordFile = path.join(dataDir, 'kafka-password');
writeFileSync(passwordFile, `${credentials.kafka.password}\n`);

// Short group timeouts so that joins, rebalances and leaves take well under a second here.
const fastGroups = { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 250, rebalanceTimeoutMs: 10_000, maxWaitTimeMs: 100, retries: 2 };

function scramEnv(prefix: string): Record<string, string> {
  return {
    HERALD_APP_ID: 'shop',
    HERALD_APP_KEY: 'app-key-123',
    HERALD_MASTER_KEY: 'master-key-123',
    HERALD_DATA_DIR: dataDir,
    HERALD_KAFKA_BROKERS: securedEndpoints.kafka.saslSsl.join(','),
    HERALD_KAFKA_TOPIC_PREFIX: prefix,
    HERALD_KAFKA_TLS_CA_FILE: tls.caCert,
    HERALD_KAFKA_SASL_MECHANISM: 'scram-sha-512',
    HERALD_KAFKA_SASL_USERNAME: credentials.kafka.username,
    HERALD_KAFKA_SASL_PASSWORD_FILE: passwordFile,
  };
}

function busConfig(env: Record<string, string | undefined>): BusConfig {
  return loadConfig({ env }).config.bus;
}

function newPrefix(): string {
  return `t${randomBytes(5).toString('hex')}.`;
}

let admin: Admin;

beforeAll(async () => {
  await expectSecuredListeners('kafka');
  quietKafkaRequestQueues();
  // The plain listener of the same broker, to see what the secured clients did.
  admin = new Kafka({ clientId: 'herald-secured-tests', brokers: [...serviceEndpoints.kafka.brokers], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
});

afterAll(async () => {
  await admin?.disconnect();
});

async function topicsStartingWith(prefix: string): Promise<string[]> {
  return (await admin.listTopics()).filter((topic) => topic.startsWith(prefix));
}

describeBusConformance('KafkaBus over SASL_SSL with SCRAM-SHA-512', () => {
  const bus = new KafkaBus({ ...kafkaBusOptions(busConfig(scramEnv(newPrefix())), silentLogger()), ...fastGroups });
  return Promise.resolve({
    bus,
    cleanup: async ({ topics, groups }) => {
      await bus.close();
      const existing = new Set(await admin.listTopics());
      await deleteTopics(admin, topics.filter((topic) => existing.has(topic)));
      if (groups.length > 0) await admin.deleteGroups(groups).catch(() => undefined);
    },
  });
});

describe('Herald on a secured Kafka', () => {
  const opened: Bus[] = [];
  const prefixes: string[] = [];

  afterAll(async () => {
    for (const bus of opened) await bus.close();
    for (const prefix of prefixes) await deleteTopics(admin, await topicsStartingWith(prefix));
  });

  /** Opens the bus the environment describes, as Herald does at start: its topics are created. */
  async function open(env: Record<string, string | undefined>): Promise<Bus> {
    const bus = await openBus(busConfig(env), silentLogger());
    opened.push(bus);
    return bus;
  }

  /** Opening with the environment changed by `change` fails; answers the error and checks that no topic was made. */
  async function refusal(change: (env: Record<string, string | undefined>) => void): Promise<BackendStartError> {
    const prefix = newPrefix();
    const env: Record<string, string | undefined> = scramEnv(prefix);
    change(env);
    const error: unknown = await open(env).then(
      () => expect.fail('the bus opened'),
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(BackendStartError);
    expect(await topicsStartingWith(prefix)).toEqual([]);
    return error as BackendStartError;
  }

  it.each(['plain', 'scram-sha-256', 'scram-sha-512'])('creates its topics through the SASL_SSL listener with %s', async (mechanism) => {
    const prefix = newPrefix();
    prefixes.push(prefix);
    const bus = await open({ ...scramEnv(prefix), HERALD_KAFKA_SASL_MECHANISM: mechanism });
    await bus.ping();
    expect((await topicsStartingWith(prefix)).sort()).toEqual([`${prefix}push.outcomes`, `${prefix}push.requests`, `${prefix}push.tasks`]);
  });

  it('creates its topics through the SSL listener with a client certificate, and by the server name the certificate carries', async () => {
    const prefix = newPrefix();
    prefixes.push(prefix);
    const env = {
      HERALD_APP_ID: 'shop',
      HERALD_APP_KEY: 'app-key-123',
      HERALD_MASTER_KEY: 'master-key-123',
      HERALD_DATA_DIR: dataDir,
      HERALD_KAFKA_BROKERS: securedEndpoints.kafka.ssl.join(','),
      HERALD_KAFKA_TOPIC_PREFIX: prefix,
      HERALD_KAFKA_TLS_CA_FILE: tls.caCert,
      HERALD_KAFKA_TLS_CERT_FILE: tls.clientCert,
      HERALD_KAFKA_TLS_KEY_FILE: tls.clientKey,
      HERALD_KAFKA_TLS_SERVER_NAME: 'herald-services.test',
    };
    await open(env);
    expect((await topicsStartingWith(prefix)).sort()).toEqual([`${prefix}push.outcomes`, `${prefix}push.requests`, `${prefix}push.tasks`]);
  });

  it('refuses to start on a wrong password, naming Kafka and the reason, and creates no topic', async () => {
    const error = await refusal((env) => {
      delete env.HERALD_KAFKA_SASL_PASSWORD_FILE;
      env.HERALD_KAFKA_SASL_PASSWORD = 'not-the-password';
    });
    expect(error.message).toBe(
      `Kafka at ${securedEndpoints.kafka.saslSsl[0]}: SASL authentication failed (SASL SCRAM SHA512 authentication failed: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512)`,
    );
  });

  it("refuses to start when the brokers' certificate is checked against the system's CAs alone", async () => {
    const error = await refusal((env) => {
      delete env.HERALD_KAFKA_TLS_CA_FILE;
      env.HERALD_KAFKA_TLS = 'true';
    });
    expect(error.message).toMatch(/^Kafka at 127\.0\.0\.1:\d+: TLS: the server's certificate is not signed by a CA Herald trusts; give the CA file that signed it \(Connection error: unable to verify the first certificate/);
  });

  it("refuses to start when the brokers' certificate is signed by a CA Herald was not given", async () => {
    const error = await refusal((env) => (env.HERALD_KAFKA_TLS_CA_FILE = tls.untrustedCaCert));
    expect(error.message).toContain("TLS: the server's certificate is not signed by a CA Herald trusts");
  });

  it('refuses to start without a client certificate where the listener requires one', async () => {
    const error = await refusal((env) => {
      env.HERALD_KAFKA_BROKERS = securedEndpoints.kafka.ssl.join(',');
      for (const name of ['HERALD_KAFKA_SASL_MECHANISM', 'HERALD_KAFKA_SASL_USERNAME', 'HERALD_KAFKA_SASL_PASSWORD_FILE']) delete env[name];
    });
    expect(error.message).toMatch(/^Kafka at 127\.0\.0\.1:\d+: TLS: the server refused the handshake, most likely the client certificate \(not one it trusts, or none\) \(Connection error: ssl\/tls alert bad certificate\)$/);
  });

  it('refuses to start speaking plain Kafka to the SASL_SSL listener', async () => {
    const error = await refusal((env) => {
      delete env.HERALD_KAFKA_TLS_CA_FILE;
    });
    expect(error.message).toBe(
      `Kafka at ${securedEndpoints.kafka.saslSsl[0]}: the server closed the connection before answering: a port that wants TLS (or SASL) spoken to without it? (Closed connection)`,
    );
  });

  it('warns that SASL PLAIN without TLS sends the password as it is, and logs no password at all', async () => {
    const prefix = newPrefix();
    const log = memoryLogger();
    const env: Record<string, string | undefined> = { ...scramEnv(prefix), HERALD_KAFKA_SASL_MECHANISM: 'plain' };
    delete env.HERALD_KAFKA_TLS_CA_FILE;
    await expect(openBus(busConfig(env), log.logger)).rejects.toThrow(BackendStartError);
    expect(log.lines).toContainEqual(
      expect.objectContaining({ level: 40, component: 'bus', msg: 'SASL PLAIN without TLS: the Kafka password crosses the network as it is; turn TLS on' }),
    );
    expect(log.text()).not.toContain(credentials.kafka.password);
    expect(await topicsStartingWith(prefix)).toEqual([]);
  });

  it('refuses to start speaking TLS to the plain listener', async () => {
    const error = await refusal((env) => {
      env.HERALD_KAFKA_BROKERS = serviceEndpoints.kafka.brokers.join(',');
    });
    expect(error.message).toMatch(/^Kafka at 127\.0\.0\.1:\d+: TLS: the server closed the connection during the handshake; does this port speak TLS\?/);
  });

  it('makes herald migrate exit 1 with the reason, the password never printed', async () => {
    const prefix = newPrefix();
    const env = { ...scramEnv(prefix), HERALD_KAFKA_SASL_PASSWORD_FILE: '', HERALD_KAFKA_SASL_PASSWORD: 'wrong-secret-123' };
    const { code, output } = await runHeraldCommand(['migrate'], env);
    expect(code).toBe(1);
    expect(output).toContain(`herald failed to start: Kafka at ${securedEndpoints.kafka.saslSsl[0]}: SASL authentication failed`);
    expect(output).not.toContain('wrong-secret-123');
    expect(await topicsStartingWith(prefix)).toEqual([]);
  });
});
