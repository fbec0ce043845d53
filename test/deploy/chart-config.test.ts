import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.ts';
import { checkDeployment } from '../../src/runtime/deployment-checks.ts';
import { deploymentOf, deploymentsByRole, type RenderedJob, type Workload } from './support/chart-pods.ts';
import { ChartPodSandbox } from './support/chart-pod-sandbox.ts';
import { ciValues, findObject, renderChart, type KubeObject } from './support/helm-chart.ts';

/** What an operator puts in the existing Secret of ci/production-values.yaml. */
const productionSecret: Record<string, string> = {
  'app.shop.key': 'shop-app-key-0001\n',
  'app.shop.masterKey': 'shop-master-key-0001\n',
  'app.shop.smtpPass': 'smtp-password',
  'app.game.key': 'game-app-key-0001',
  'app.game.masterKey': 'game-master-key-0001',
  'apns.shop.p8': '-----BEGIN PRIVATE KEY-----\nnot a real key\n-----END PRIVATE KEY-----\n',
  'fcm.shop.json': '{"type": "service_account"}',
  'apns.game.production.p12': 'pkcs12 bytes',
  'apns.game.production.pass': 'p12 passphrase',
  'cassandra-password': 'cassandra-secret',
  'redis-url': 'redis://:redis-secret@redis-master.redis:6379',
};

const sandboxes: ChartPodSandbox[] = [];

function sandbox(objects: readonly KubeObject[], workload: Workload, secret: Record<string, string>): ChartPodSandbox {
  const made = new ChartPodSandbox(objects, workload, secret);
  sandboxes.push(made);
  return made;
}

afterEach(() => {
  for (const made of sandboxes.splice(0)) made.remove();
});

/** Runs the pod's init container, then loads the config as Herald does at start; fails with the init container's output. */
function startConfig(pod: ChartPodSandbox) {
  const init = pod.runInit();
  expect(init.status, `init container:\n${init.stdout}${init.stderr}`).toBe(0);
  return loadConfig({ env: pod.heraldEnvironment() });
}

describe('the config a production pod starts with', () => {
  const objects = renderChart({ values: [ciValues.production] });

  it.each([...deploymentsByRole(objects).keys()])('is one Herald accepts for the %s role, with no reason to refuse it', (role) => {
    const pod = sandbox(objects, deploymentOf(objects, role), productionSecret);
    const { config, devKeys } = startConfig(pod);
    expect(devKeys).toBeNull();
    expect(config.role).toBe(role);
    expect(() => checkDeployment(config, { developmentKeys: false })).not.toThrow();
  });

  it('takes the apps from values and their keys from the Secret, without the trailing newline of a file', () => {
    const pod = sandbox(objects, deploymentOf(objects, 'api'), productionSecret);
    const { config } = startConfig(pod);
    expect(config.apps.map((app) => [app.id, app.key, app.masterKey])).toEqual([
      ['shop', 'shop-app-key-0001', 'shop-master-key-0001'],
      ['game', 'game-app-key-0001', 'game-master-key-0001'],
    ]);
    const [shop, game] = config.apps;
    expect(shop?.name).toBe('Example Shop');
    expect(shop?.settings.emailVerification).toBe(true);
    expect(shop?.mail.smtp).toMatchObject({ host: 'smtp.example.com', user: 'mailer', pass: 'smtp-password' });
    expect(config.publicUrl).toBe('https://accounts.example.com');
    expect(config.push.gateways.requestTimeoutMs).toBe(10_000);
    // Push credentials are files of the mounted Secret, which the sender reads at start.
    expect(shop?.push.apns?.token?.keyFile).toBe(pod.local('/etc/herald/secret/apns.shop.p8'));
    expect(shop?.push.fcm?.serviceAccountFile).toBe(pod.local('/etc/herald/secret/fcm.shop.json'));
    expect(game?.push.apns?.certificates?.production).toEqual({
      pfxFile: pod.local('/etc/herald/secret/apns.game.production.p12'),
      passphraseFile: pod.local('/etc/herald/secret/apns.game.production.pass'),
    });
    for (const file of [shop?.push.apns?.token?.keyFile, shop?.push.fcm?.serviceAccountFile]) expect(existsSync(file ?? ''), file).toBe(true);
  });

  it('points Herald at Cassandra, Kafka and Redis with the passwords from the Secret', () => {
    const pod = sandbox(objects, deploymentOf(objects, 'sender'), productionSecret);
    const { config } = startConfig(pod);
    expect(config.store).toMatchObject({
      kind: 'cassandra',
      contactPoints: ['herald-dc1-service.cassandra.svc:9042'],
      localDataCenter: 'dc1',
      keyspace: 'herald',
      replication: { dc1: 3 },
      username: 'herald',
      password: 'cassandra-secret',
    });
    expect(config.bus).toMatchObject({ kind: 'kafka', brokers: ['herald-kafka-bootstrap.kafka.svc:9092'], topicPrefix: 'prod.', topics: { pushRequests: 6, pushTasks: 24 } });
    expect(config.coordination).toMatchObject({ kind: 'redis', url: 'redis://:redis-secret@redis-master.redis:6379' });
    expect(config).toMatchObject({ port: 3000, internalPort: 9100, grpcPort: 50051, dataDir: pod.local('/data') });
  });

  it('is the same for the migration Job, which runs migrate on it', () => {
    const job = findObject(objects, 'Job', 'herald-migration') as RenderedJob;
    const { config } = startConfig(sandbox(objects, job, productionSecret));
    expect(config.store.kind).toBe('cassandra');
    expect(config.bus.kind).toBe('kafka');
    expect(config.apps.map((app) => app.id)).toEqual(['shop', 'game']);
  });

  it('is not written when the Secret lacks entries: the init container fails naming each of them', () => {
    const { 'app.game.masterKey': _masterKey, 'apns.shop.p8': _apnsKey, ...incomplete } = productionSecret;
    const pod = sandbox(objects, deploymentOf(objects, 'sender'), incomplete);
    const init = pod.runInit();
    expect(init.status).toBe(1);
    expect(init.stderr).toContain('the Secret herald-secrets has no entry app.game.masterKey (the master key of app game)');
    expect(init.stderr).toContain('the Secret herald-secrets has no entry apns.shop.p8 (apps[0].push.apns.token.keyFile)');
    expect(init.stderr).not.toContain('shop-app-key-0001');
    expect(existsSync(pod.local('/run/herald/herald.json'))).toBe(false);
  });
});

describe('the config a trial pod starts with', () => {
  it('serves the trial app with the keys of the chart-made Secret on the embedded backends', () => {
    const objects = renderChart({ values: [ciValues.trial] });
    const secret = findObject(objects, 'Secret', 'herald').stringData as Record<string, string>;
    const pod = sandbox(objects, deploymentOf(objects, 'all'), secret);
    const { config, devKeys } = startConfig(pod);
    expect(devKeys).toBeNull();
    expect(config.apps.map((app) => [app.id, app.key, app.masterKey])).toEqual([['trial', 'trial-app-key-change-me', 'trial-master-key-change-me']]);
    expect(config.store.kind).toBe('sqlite');
    expect(config.bus.kind).toBe('memory');
    expect(config.coordination.kind).toBe('memory');
    expect(config.dataDir).toBe(pod.local('/data'));
    expect(() => checkDeployment(config, { developmentKeys: false })).not.toThrow();
  });

  it('makes development keys in /data when no app is configured, which one pod may do', () => {
    const objects = renderChart();
    const pod = sandbox(objects, deploymentOf(objects, 'all'), {});
    const { config, devKeys } = startConfig(pod);
    expect(devKeys?.file).toBe(path.join(pod.local('/data'), 'dev-app.json'));
    expect(existsSync(devKeys?.file ?? '')).toBe(true);
    expect(() => checkDeployment(config, { developmentKeys: true })).not.toThrow();
  });
});
