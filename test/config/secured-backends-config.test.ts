import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureTlsMaterial, type TlsMaterial } from '../../scripts/services/test-ca.ts';
import { ConfigError, loadConfig } from '../../src/config/load-config.ts';
import { envVariables } from '../../src/config/schema.ts';
import { passwordOf, readSecretFile, tlsOptionsOf } from '../../src/config/secret-files.ts';

const single = { HERALD_APP_ID: 'shop', HERALD_APP_KEY: 'app-key-123', HERALD_MASTER_KEY: 'master-key-123' };
const dir = mkdtempSync(path.join(tmpdir(), 'herald-secured-config-'));
const load = (env: Record<string, string>) => loadConfig({ env: { ...single, HERALD_DATA_DIR: dir, ...env } }).config;

/** Every setting of a secured connection, by the variable that sets it. */
const securedVariables = [
  'HERALD_CASSANDRA_PASSWORD_FILE',
  'HERALD_CASSANDRA_TLS',
  'HERALD_CASSANDRA_TLS_CA_FILE',
  'HERALD_CASSANDRA_TLS_CERT_FILE',
  'HERALD_CASSANDRA_TLS_KEY_FILE',
  'HERALD_CASSANDRA_TLS_SERVER_NAME',
  'HERALD_KAFKA_TLS',
  'HERALD_KAFKA_TLS_CA_FILE',
  'HERALD_KAFKA_TLS_CERT_FILE',
  'HERALD_KAFKA_TLS_KEY_FILE',
  'HERALD_KAFKA_TLS_SERVER_NAME',
  'HERALD_KAFKA_SASL_MECHANISM',
  'HERALD_KAFKA_SASL_USERNAME',
  'HERALD_KAFKA_SASL_PASSWORD',
  'HERALD_KAFKA_SASL_PASSWORD_FILE',
  'HERALD_REDIS_USERNAME',
  'HERALD_REDIS_PASSWORD',
  'HERALD_REDIS_PASSWORD_FILE',
  'HERALD_REDIS_TLS_CA_FILE',
  'HERALD_REDIS_TLS_CERT_FILE',
  'HERALD_REDIS_TLS_KEY_FILE',
  'HERALD_REDIS_TLS_SERVER_NAME',
] as const;

describe('secured backend settings', () => {
  it('are read from the documented variables', () => {
    const config = load({
      HERALD_CASSANDRA_CONTACT_POINTS: 'c1:9142',
      HERALD_CASSANDRA_USERNAME: 'herald',
      HERALD_CASSANDRA_PASSWORD_FILE: '/run/secrets/cassandra',
      HERALD_CASSANDRA_TLS_CA_FILE: '/etc/ca.pem',
      HERALD_CASSANDRA_TLS_CERT_FILE: '/etc/client.pem',
      HERALD_CASSANDRA_TLS_KEY_FILE: '/etc/client.key',
      HERALD_CASSANDRA_TLS_SERVER_NAME: 'cassandra.internal',
      HERALD_KAFKA_BROKERS: 'k1:9094',
      HERALD_KAFKA_TLS: 'true',
      HERALD_KAFKA_SASL_MECHANISM: 'scram-sha-512',
      HERALD_KAFKA_SASL_USERNAME: 'herald',
      HERALD_KAFKA_SASL_PASSWORD: 'kafka-secret',
      HERALD_REDIS_URL: 'rediss://redis.internal:6380',
      HERALD_REDIS_USERNAME: 'herald',
      HERALD_REDIS_PASSWORD_FILE: '/run/secrets/redis',
      HERALD_REDIS_TLS_CA_FILE: '/etc/redis-ca.pem',
    });
    expect(config.store).toMatchObject({
      username: 'herald',
      passwordFile: '/run/secrets/cassandra',
      tls: { enabled: true, caFile: '/etc/ca.pem', certFile: '/etc/client.pem', keyFile: '/etc/client.key', serverName: 'cassandra.internal' },
    });
    expect(config.bus).toMatchObject({ tls: { enabled: true }, sasl: { mechanism: 'scram-sha-512', username: 'herald', password: 'kafka-secret' } });
    expect(config.coordination).toMatchObject({ username: 'herald', passwordFile: '/run/secrets/redis', tls: { enabled: true, caFile: '/etc/redis-ca.pem' } });
  });

  it('leave TLS and SASL off unless asked for', () => {
    const config = load({ HERALD_CASSANDRA_CONTACT_POINTS: 'c1', HERALD_KAFKA_BROKERS: 'k1:9092', HERALD_REDIS_URL: 'redis://r:6379' });
    expect(config.store.tls).toEqual({ enabled: false });
    expect(config.bus.tls).toEqual({ enabled: false });
    expect(config.bus.sasl).toBeUndefined();
    expect(config.coordination.tls).toEqual({ enabled: false });
  });

  it.each([
    [{ HERALD_CASSANDRA_CONTACT_POINTS: 'c1', HERALD_CASSANDRA_TLS_CERT_FILE: '/c.pem' }, 'HERALD_CASSANDRA_TLS_KEY_FILE (store.tls.keyFile): a client certificate needs both certFile and keyFile'],
    [{ HERALD_CASSANDRA_CONTACT_POINTS: 'c1', HERALD_CASSANDRA_TLS: 'false', HERALD_CASSANDRA_TLS_CA_FILE: '/ca.pem' }, 'HERALD_CASSANDRA_TLS (store.tls.enabled): TLS settings are given but TLS is turned off'],
    [{ HERALD_CASSANDRA_CONTACT_POINTS: 'c1', HERALD_CASSANDRA_PASSWORD: 'p' }, 'HERALD_CASSANDRA_USERNAME (store.username): a password needs a username'],
    [{ HERALD_CASSANDRA_CONTACT_POINTS: 'c1', HERALD_CASSANDRA_USERNAME: 'u', HERALD_CASSANDRA_PASSWORD: 'p', HERALD_CASSANDRA_PASSWORD_FILE: '/p' }, 'HERALD_CASSANDRA_PASSWORD_FILE (store.passwordFile): give the password or a password file, not both'],
    [{ HERALD_KAFKA_BROKERS: 'k1', HERALD_KAFKA_SASL_USERNAME: 'u', HERALD_KAFKA_SASL_PASSWORD: 'p' }, 'HERALD_KAFKA_SASL_MECHANISM (bus.sasl.mechanism)'],
    [{ HERALD_KAFKA_BROKERS: 'k1', HERALD_KAFKA_SASL_MECHANISM: 'scram-sha-1', HERALD_KAFKA_SASL_USERNAME: 'u', HERALD_KAFKA_SASL_PASSWORD: 'p' }, 'HERALD_KAFKA_SASL_MECHANISM (bus.sasl.mechanism)'],
    [{ HERALD_KAFKA_BROKERS: 'k1', HERALD_KAFKA_SASL_MECHANISM: 'plain', HERALD_KAFKA_SASL_USERNAME: 'u' }, 'HERALD_KAFKA_SASL_PASSWORD (bus.sasl.password): required: the SASL password'],
    [{ HERALD_REDIS_URL: 'redis://r:6379', HERALD_REDIS_TLS_CA_FILE: '/ca.pem' }, 'HERALD_REDIS_URL (coordination.url): TLS settings need a rediss:// URL'],
    [{ HERALD_REDIS_URL: 'rediss://:secret@r:6379', HERALD_REDIS_PASSWORD: 'other' }, 'HERALD_REDIS_URL (coordination.url): the URL carries credentials already; give them in one place'],
  ])('refuse %o, naming the variable', (env, message) => {
    expect(() => load(env)).toThrow(message);
  });

  it('are each listed in --help and in docs/secured-backends.md', () => {
    const docs = readFileSync(path.resolve(import.meta.dirname, '../../docs/secured-backends.md'), 'utf8');
    for (const name of securedVariables) {
      // --help prints every entry of envVariables with its help.
      expect(envVariables[name].help, name).toMatch(/\w{3}/);
      expect(docs, name).toContain(`\`${name}\``);
    }
  });
});

describe('secret files', () => {
  let material: TlsMaterial;

  beforeAll(async () => {
    material = await ensureTlsMaterial(path.join(dir, 'tls'), () => undefined);
  });

  it('read a password without the one trailing newline a Secret or echo leaves', () => {
    const file = path.join(dir, 'password');
    writeFileSync(file, 'secret with spaces \n');
    expect(readSecretFile(file, ['bus', 'sasl', 'passwordFile'])).toBe('secret with spaces ');
    expect(passwordOf({ passwordFile: file }, ['coordination'])).toBe('secret with spaces ');
    expect(passwordOf({ password: 'given' }, ['coordination'])).toBe('given');
  });

  it('refuse a missing or empty password file, naming the variable and never a secret', () => {
    expect(() => readSecretFile(path.join(dir, 'missing'), ['bus', 'sasl', 'passwordFile'])).toThrow(
      new ConfigError(`HERALD_KAFKA_SASL_PASSWORD_FILE (bus.sasl.passwordFile): cannot read ${path.join(dir, 'missing')}: ENOENT`),
    );
    const empty = path.join(dir, 'empty');
    writeFileSync(empty, '\n');
    expect(() => passwordOf({ passwordFile: empty }, ['store'])).toThrow(`HERALD_CASSANDRA_PASSWORD_FILE (store.passwordFile): ${empty} is empty`);
  });

  it('give node:tls options with the CA, the client certificate and key, the server name, and verification on', () => {
    const options = tlsOptionsOf(
      { enabled: true, caFile: material.caCert, certFile: material.clientCert, keyFile: material.clientKey, serverName: 'kafka.internal' },
      ['bus', 'tls'],
    );
    expect(options).toEqual({
      rejectUnauthorized: true,
      ca: [readFileSync(material.caCert)],
      cert: readFileSync(material.clientCert),
      key: readFileSync(material.clientKey),
      servername: 'kafka.internal',
    });
    expect(tlsOptionsOf({ enabled: true }, ['bus', 'tls'])).toEqual({ rejectUnauthorized: true });
    expect(tlsOptionsOf({ enabled: false }, ['bus', 'tls'])).toBeUndefined();
  });

  it('refuse a file that holds no PEM, an encrypted key, and a key of another certificate, naming the variable', () => {
    const text = path.join(dir, 'not-pem.txt');
    writeFileSync(text, 'not a certificate');
    expect(() => tlsOptionsOf({ enabled: true, caFile: text }, ['coordination', 'tls'])).toThrow(
      `HERALD_REDIS_TLS_CA_FILE (coordination.tls.caFile): ${text} holds no PEM certificate`,
    );
    const encrypted = path.join(dir, 'encrypted.key');
    writeFileSync(encrypted, '-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n');
    expect(() => tlsOptionsOf({ enabled: true, certFile: material.clientCert, keyFile: encrypted }, ['store', 'tls'])).toThrow(
      /^HERALD_CASSANDRA_TLS_KEY_FILE \(store\.tls\.keyFile\): .* holds an encrypted key; give it unencrypted/,
    );
    expect(() => tlsOptionsOf({ enabled: true, certFile: material.clientCert, keyFile: material.untrustedClientKey }, ['store', 'tls'])).toThrow(
      'HERALD_CASSANDRA_TLS_KEY_FILE (store.tls.keyFile): the private key does not belong to the client certificate',
    );
  });
});
