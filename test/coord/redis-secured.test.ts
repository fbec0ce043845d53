import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoordinationConfig } from '../../src/config/backends-schema.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import type { Clock } from '../../src/core/clock.ts';
import { silentLogger } from '../../src/core/logger.ts';
import type { Coordination } from '../../src/core/ports/coordination.ts';
import { BackendStartError } from '../../src/runtime/backend-start-error.ts';
import { openCoordination } from '../../src/runtime/open-coordination.ts';
import { startHeraldProcess } from '../support/herald-process.ts';
import { expectSecuredListeners, securedEndpoints, securedServices } from '../support/secured-services.ts';
import { serviceEndpoints } from '../support/service-endpoints.ts';
import { describeCoordinationConformance, manualTime, realTime, type CoordinationUnderTest } from './coordination-conformance.ts';
import { describeLeaseConformance } from './lease-conformance.ts';
import { describeTokenBucketConformance } from './token-bucket-conformance.ts';

/**
 * Herald on the local Redis's TLS port as its ACL user (scripts/services: the
 * user may run only what Herald runs, on keys under `herald:`), set up
 * through the documented variables as an operator would.
 */
const { tls, credentials } = securedServices();
const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-redis-secured-'));
const passwordFile = path.join(dataDir, 'redis-password');
writeFileSync(passwordFile, `${credentials.redis.password}\n`);
const tlsPort = new URL(securedEndpoints.redis.url).port;

function securedEnv(): Record<string, string> {
  return {
    HERALD_APP_ID: 'shop',
    HERALD_APP_KEY: 'app-key-123',
    HERALD_MASTER_KEY: 'master-key-123',
    HERALD_DATA_DIR: dataDir,
    HERALD_REDIS_URL: securedEndpoints.redis.url,
    HERALD_REDIS_USERNAME: credentials.redis.username,
    HERALD_REDIS_PASSWORD_FILE: passwordFile,
    HERALD_REDIS_TLS_CA_FILE: tls.caCert,
  };
}

/** A prefix of its own per adapter, inside the `herald:` keys the ACL user may touch. */
function testPrefix(): string {
  return `herald:test-secured:${randomUUID()}:`;
}

function coordinationConfig(env: Record<string, string | undefined>, keyPrefix = testPrefix()): CoordinationConfig {
  return { ...loadConfig({ env }).config.coordination, keyPrefix };
}

function open(config: CoordinationConfig, clock?: Clock): Promise<Coordination> {
  return openCoordination(config, { clock: clock ?? realTime().clock, logger: silentLogger() });
}

/** Values, windows and buckets follow the adapter's clock: manual time. */
async function makeSecured(): Promise<CoordinationUnderTest> {
  const time = manualTime();
  const coord = await open(coordinationConfig(securedEnv()), time.clock);
  return { coord, ...time, cleanup: () => coord.close() };
}

/** Leases are redlock locks on the server's clock: real time. */
async function makeSecuredOnRealTime(): Promise<CoordinationUnderTest> {
  const coord = await open(coordinationConfig(securedEnv()));
  return { coord, ...realTime(), cleanup: () => coord.close() };
}

let plain: Redis;

beforeAll(async () => {
  await expectSecuredListeners('redis');
  // The plain port of the same server, as its default user, to see what the secured clients did.
  plain = new Redis(serviceEndpoints.redis.url);
});

afterAll(async () => {
  await plain?.quit();
});

describeCoordinationConformance('RedisCoordination over TLS as an ACL user', makeSecured);
describeTokenBucketConformance('RedisCoordination over TLS as an ACL user', makeSecured);
describeLeaseConformance('RedisCoordination over TLS as an ACL user', makeSecuredOnRealTime);

describe('Herald on a secured Redis', () => {
  /** The connections on the TLS port, as CLIENT LIST shows them: the user each logged in as. */
  async function tlsConnections(): Promise<{ id: string; user: string }[]> {
    const list = (await plain.client('LIST')) as string;
    return list
      .split('\n')
      .filter((line) => line.includes(`laddr=127.0.0.1:${tlsPort} `))
      .map((line) => ({ id: /\bid=(\d+)/.exec(line)?.[1] ?? '', user: /\buser=(\S+)/.exec(line)?.[1] ?? '' }));
  }

  /** Opening with the environment changed by `change` fails; answers the error and checks that no key was written. */
  async function refusal(change: (env: Record<string, string | undefined>) => void): Promise<BackendStartError> {
    const prefix = testPrefix();
    const env: Record<string, string | undefined> = securedEnv();
    change(env);
    const error: unknown = await open(coordinationConfig(env, prefix)).then(
      (coord) => coord.close().then(() => expect.fail('coordination opened')),
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(BackendStartError);
    expect(await plain.keys(`${prefix}*`)).toEqual([]);
    return error as BackendStartError;
  }

  it('reaches Redis, redlock leases included, over one TLS connection as the ACL user', async () => {
    const before = new Set((await tlsConnections()).map((connection) => connection.id));
    const prefix = testPrefix();
    const coord = await open(coordinationConfig(securedEnv(), prefix));
    try {
      const lease = await coord.acquireLease('scheduler', 30_000);
      expect(lease).not.toBeNull();
      await coord.set('app:shop:probe', 'value', 60_000);
      expect((await plain.keys(`${prefix}*`)).sort()).toEqual(['app:shop:probe', 'lease:scheduler'].map((key) => `${prefix}${key}`));
      const opened = (await tlsConnections()).filter((connection) => !before.has(connection.id));
      expect(opened.map((connection) => connection.user)).toEqual([credentials.redis.username]);
      await lease?.release();
    } finally {
      await coord.close();
    }
  });

  it('presents a client certificate when given one, and by the server name the certificate carries', async () => {
    const env = { ...securedEnv(), HERALD_REDIS_TLS_CERT_FILE: tls.clientCert, HERALD_REDIS_TLS_KEY_FILE: tls.clientKey, HERALD_REDIS_TLS_SERVER_NAME: 'herald-services.test' };
    const coord = await open(coordinationConfig(env));
    await coord.ping();
    await coord.close();
  });

  it('refuses to start on a wrong password at once, naming Redis and the reason, and writes nothing', async () => {
    const started = Date.now();
    const error = await refusal((env) => {
      delete env.HERALD_REDIS_PASSWORD_FILE;
      env.HERALD_REDIS_PASSWORD = 'not-the-password';
    });
    expect(error.message).toBe(`Redis at 127.0.0.1:${tlsPort}: authentication failed (WRONGPASS invalid username-password pair or user is disabled.)`);
    // Credentials refused are not waited out for the ready timeout (10 s).
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("refuses to start when the server's certificate is checked against the system's CAs alone", async () => {
    const error = await refusal((env) => {
      delete env.HERALD_REDIS_TLS_CA_FILE;
    });
    expect(error.message).toBe(
      `Redis at 127.0.0.1:${tlsPort}: TLS: the server's certificate is not signed by a CA Herald trusts; give the CA file that signed it (self-signed certificate in certificate chain)`,
    );
  });

  it('refuses to start with a client certificate the server does not trust', async () => {
    const error = await refusal((env) => {
      env.HERALD_REDIS_TLS_CERT_FILE = tls.untrustedClientCert;
      env.HERALD_REDIS_TLS_KEY_FILE = tls.untrustedClientKey;
    });
    expect(error.message).toBe(`Redis at 127.0.0.1:${tlsPort}: TLS: the server refused the handshake, most likely the client certificate (not one it trusts, or none) (tlsv1 alert unknown ca)`);
  });

  it('refuses to start when the certificate does not carry the server name given', async () => {
    const error = await refusal((env) => (env.HERALD_REDIS_TLS_SERVER_NAME = 'redis.example.com'));
    expect(error.message).toMatch(/^Redis at 127\.0\.0\.1:\d+: TLS: the server's certificate does not carry the name Herald dialled; .*Host: redis\.example\.com/);
  });

  it('refuses to start speaking plain Redis to the TLS port', async () => {
    const error = await refusal((env) => {
      env.HERALD_REDIS_URL = securedEndpoints.redis.url.replace('rediss://', 'redis://');
      delete env.HERALD_REDIS_TLS_CA_FILE;
    });
    expect(error.message).toMatch(
      /^Redis at 127\.0\.0\.1:\d+: the server closed the connection before answering: a port that wants TLS \(or SASL\) spoken to without it\? \((read|write) ECONNRESET\)$/,
    );
  });

  it('makes a Herald process exit 1 with the reason, the password never printed', async () => {
    const env = { ...securedEnv(), HERALD_REDIS_PASSWORD_FILE: '', HERALD_REDIS_PASSWORD: 'wrong-secret-123' };
    const failure: unknown = await startHeraldProcess(env).then(
      (herald) => herald.stop().then(() => expect.fail('herald started')),
      (reason: unknown) => reason,
    );
    expect(String(failure)).toContain(`exited with 1: herald failed to start: Redis at 127.0.0.1:${tlsPort}: authentication failed (WRONGPASS`);
    expect(String(failure)).not.toContain('wrong-secret-123');
  });
});
