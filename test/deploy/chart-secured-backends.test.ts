import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { ensureTlsMaterial, type TlsMaterial } from '../../scripts/services/test-ca.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { passwordOf, tlsOptionsOf } from '../../src/config/secret-files.ts';
import { schemaProblems } from './support/chart-models.ts';
import { deploymentOf, envOf, heraldContainer } from './support/chart-pods.ts';
import { ChartPodSandbox } from './support/chart-pod-sandbox.ts';
import { ciValues, findObject, renderChart, templateChart, type KubeObject } from './support/helm-chart.ts';

/** ci/production-values.yaml with every backend secured, as docs/secured-backends.md shows. */
const secured = {
  cassandra: { username: 'herald', passwordKey: 'cassandra-password', tls: { enabled: true, caKey: 'cassandra-ca.pem', certKey: 'cassandra-client.crt', keyKey: 'cassandra-client.key' } },
  kafka: {
    brokers: ['herald-kafka-bootstrap.kafka.svc:9093'],
    tls: { enabled: true, caKey: 'kafka-ca.pem', serverName: 'kafka.internal' },
    sasl: { mechanism: 'scram-sha-512', username: 'herald', passwordKey: 'kafka-password' },
  },
  redis: { urlKey: '', url: 'rediss://redis-master.redis.svc:6380', username: 'herald', passwordKey: 'redis-password', tls: { caKey: 'redis-ca.pem' } },
  sender: { keda: { enabled: true } },
};

const dir = mkdtempSync(path.join(tmpdir(), 'herald-chart-secured-'));
const securedValues = path.join(dir, 'secured-values.yaml');
writeFileSync(securedValues, toYaml(secured));

let tls: TlsMaterial;
let objects: KubeObject[];
const sandboxes: ChartPodSandbox[] = [];

/** The existing Secret of the production values, with the backends' passwords and PEM files. */
function secretEntries(): Record<string, string> {
  const pem = (file: string) => readFileSync(file, 'utf8');
  return {
    'app.shop.key': 'shop-app-key-0001',
    'app.shop.masterKey': 'shop-master-key-0001',
    'app.game.key': 'game-app-key-0001',
    'app.game.masterKey': 'game-master-key-0001',
    'apns.shop.p8': '-----BEGIN PRIVATE KEY-----\nnot a real key\n-----END PRIVATE KEY-----\n',
    'fcm.shop.json': '{"type": "service_account"}',
    'apns.game.production.p12': 'pkcs12 bytes',
    'apns.game.production.pass': 'p12 passphrase',
    'cassandra-password': 'cassandra-secret',
    'kafka-password': 'kafka-secret',
    'redis-password': 'redis-secret',
    'cassandra-ca.pem': pem(tls.caCert),
    'cassandra-client.crt': pem(tls.clientCert),
    'cassandra-client.key': pem(tls.clientKey),
    'kafka-ca.pem': pem(tls.caCert),
    'redis-ca.pem': pem(tls.caCert),
  };
}

beforeAll(async () => {
  tls = await ensureTlsMaterial(path.join(dir, 'tls'), () => undefined);
  objects = renderChart({ values: [ciValues.production, securedValues] });
});

afterAll(() => {
  for (const sandbox of sandboxes.splice(0)) sandbox.remove();
});

describe('a chart install on secured backends', () => {
  it('gives every role the TLS files as paths in the mounted Secret and the passwords from it', () => {
    const env = envOf(heraldContainer(deploymentOf(objects, 'sender')));
    const plain = (name: string) => env.get(name)?.value;
    const fromSecret = (name: string) => env.get(name)?.valueFrom?.secretKeyRef;
    expect(plain('HERALD_CASSANDRA_TLS')).toBe('true');
    expect(plain('HERALD_CASSANDRA_TLS_CA_FILE')).toBe('/etc/herald/secret/cassandra-ca.pem');
    expect(plain('HERALD_CASSANDRA_TLS_CERT_FILE')).toBe('/etc/herald/secret/cassandra-client.crt');
    expect(plain('HERALD_CASSANDRA_TLS_KEY_FILE')).toBe('/etc/herald/secret/cassandra-client.key');
    expect(fromSecret('HERALD_CASSANDRA_PASSWORD')).toEqual({ name: 'herald-secrets', key: 'cassandra-password' });
    expect(plain('HERALD_KAFKA_TLS')).toBe('true');
    expect(plain('HERALD_KAFKA_TLS_CA_FILE')).toBe('/etc/herald/secret/kafka-ca.pem');
    expect(plain('HERALD_KAFKA_TLS_SERVER_NAME')).toBe('kafka.internal');
    expect(plain('HERALD_KAFKA_SASL_MECHANISM')).toBe('scram-sha-512');
    expect(plain('HERALD_KAFKA_SASL_USERNAME')).toBe('herald');
    expect(fromSecret('HERALD_KAFKA_SASL_PASSWORD')).toEqual({ name: 'herald-secrets', key: 'kafka-password' });
    expect(plain('HERALD_REDIS_URL')).toBe('rediss://redis-master.redis.svc:6380');
    expect(plain('HERALD_REDIS_USERNAME')).toBe('herald');
    expect(fromSecret('HERALD_REDIS_PASSWORD')).toEqual({ name: 'herald-secrets', key: 'redis-password' });
    expect(plain('HERALD_REDIS_TLS_CA_FILE')).toBe('/etc/herald/secret/redis-ca.pem');
    expect(env.has('HERALD_REDIS_TLS')).toBe(false);
    // No secret is ever a plain value of the pod spec.
    for (const variable of env.values()) expect(variable.value ?? '', variable.name).not.toMatch(/secret$|BEGIN/);
  });

  it.each(['api', 'sender'])('starts the %s role with settings Herald accepts, reading every file from the Secret volume', (role) => {
    const pod = new ChartPodSandbox(objects, deploymentOf(objects, role), secretEntries());
    sandboxes.push(pod);
    expect(pod.runInit().status).toBe(0);
    const { config } = loadConfig({ env: pod.heraldEnvironment() });
    expect(config.store).toMatchObject({ username: 'herald', password: 'cassandra-secret', tls: { enabled: true, caFile: pod.local('/etc/herald/secret/cassandra-ca.pem') } });
    expect(config.bus.sasl).toEqual({ mechanism: 'scram-sha-512', username: 'herald', password: 'kafka-secret' });
    expect(config.coordination).toMatchObject({ url: 'rediss://redis-master.redis.svc:6380', username: 'herald', password: 'redis-secret' });
    // As Herald reads them when it opens each backend.
    expect(tlsOptionsOf(config.store.tls, ['store', 'tls'])).toMatchObject({ ca: [readFileSync(tls.caCert)], cert: readFileSync(tls.clientCert), key: readFileSync(tls.clientKey) });
    expect(tlsOptionsOf(config.bus.tls, ['bus', 'tls'])).toMatchObject({ servername: 'kafka.internal', rejectUnauthorized: true });
    expect(tlsOptionsOf(config.coordination.tls, ['coordination', 'tls'])?.ca).toEqual([readFileSync(tls.caCert)]);
    expect(passwordOf(config.coordination, ['coordination'])).toBe('redis-secret');
  });

  it("gives the KEDA trigger the senders' credentials through a TriggerAuthentication on the same Secret", () => {
    const authentication = findObject(objects, 'TriggerAuthentication', 'herald-sender-kafka');
    expect(schemaProblems(authentication)).toEqual([]);
    expect(authentication.spec).toEqual({
      secretTargetRef: [
        { parameter: 'password', name: 'herald-secrets', key: 'kafka-password' },
        { parameter: 'ca', name: 'herald-secrets', key: 'kafka-ca.pem' },
      ],
      env: [{ parameter: 'username', name: 'HERALD_KAFKA_SASL_USERNAME', containerName: 'herald' }],
    });
    const scaled = findObject(objects, 'ScaledObject', 'herald-sender') as KubeObject & { spec: { triggers: { metadata: Record<string, string>; authenticationRef?: { name: string } }[] } };
    const [trigger] = scaled.spec.triggers;
    expect(trigger?.metadata).toMatchObject({ bootstrapServers: 'herald-kafka-bootstrap.kafka.svc:9093', tls: 'enable', sasl: 'scram_sha512' });
    expect(trigger?.authenticationRef).toEqual({ name: 'herald-sender-kafka' });
    // KEDA reads the username from the scale target's container: the variable must be there, as a plain value.
    expect(envOf(heraldContainer(deploymentOf(objects, 'sender'))).get('HERALD_KAFKA_SASL_USERNAME')?.value).toBe('herald');
  });

  it.each([
    ['plain', 'plaintext'],
    ['scram-sha-256', 'scram_sha256'],
  ])('names SASL %s to KEDA as %s', (mechanism, keda) => {
    const rendered = renderChart({ values: [ciValues.production, securedValues], set: [`kafka.sasl.mechanism=${mechanism}`] });
    const scaled = findObject(rendered, 'ScaledObject', 'herald-sender') as KubeObject & { spec: { triggers: { metadata: Record<string, string> }[] } };
    expect(scaled.spec.triggers[0]?.metadata.sasl).toBe(keda);
  });

  it('renders no TriggerAuthentication, and no TLS or SASL variables, for an open Kafka', () => {
    const open = renderChart({ values: [ciValues.autoscaling] });
    expect(open.filter((object) => object.kind === 'TriggerAuthentication')).toEqual([]);
    const scaled = findObject(open, 'ScaledObject', 'herald-sender') as KubeObject & { spec: { triggers: { metadata: Record<string, string>; authenticationRef?: unknown }[] } };
    expect(scaled.spec.triggers[0]?.metadata.tls).toBeUndefined();
    expect(scaled.spec.triggers[0]?.authenticationRef).toBeUndefined();
    const names = [...envOf(heraldContainer(deploymentOf(open, 'sender'))).keys()];
    expect(names.filter((name) => /TLS|SASL|REDIS_USERNAME|REDIS_PASSWORD/.test(name))).toEqual([]);
  });
});

describe('values of secured backends the chart refuses', () => {
  it.each([
    [['kafka.sasl.passwordKey='], 'kafka.sasl.passwordKey: required with kafka.sasl.mechanism'],
    [['kafka.sasl.username='], 'kafka.sasl.username: required with kafka.sasl.mechanism'],
    [['kafka.sasl.mechanism='], 'kafka.sasl.mechanism: set plain, scram-sha-256 or scram-sha-512 beside kafka.sasl.username and kafka.sasl.passwordKey'],
    [['cassandra.tls.keyKey='], 'cassandra.tls: a client certificate needs both certKey and keyKey'],
    [['kafka.tls.enabled=false'], 'kafka.tls.enabled: false, but kafka.tls names files or a server name'],
    [['redis.url=redis://redis-master.redis.svc:6379'], 'redis.tls: TLS settings need a rediss:// URL'],
    [['kafka.sasl.mechanism=gssapi'], 'kafka.sasl.mechanism'],
  ])('refuses %o, naming the value', (set, message) => {
    const result = templateChart({ values: [ciValues.production, securedValues], set });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(message);
  });

  it("refuses an entry the chart's own Secret does not hold", () => {
    const result = templateChart({
      values: [ciValues.production, securedValues],
      set: ['secret.existingSecret=', 'secret.stringData.app\\.shop\\.key=k1234567', 'secret.stringData.app\\.shop\\.masterKey=m1234567', 'secret.stringData.app\\.game\\.key=k7654321', 'secret.stringData.app\\.game\\.masterKey=m7654321'],
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/secret\.stringData: \S+ names the entry \S+, which the chart's Secret does not hold/);
  });
});
