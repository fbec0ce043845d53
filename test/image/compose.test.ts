import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.ts';
import { ComposeContainer } from './support/compose-container.ts';
import { imageEnvironment, imageRuntime, interpolate, mountsOf, publishedPort, readCompose, repoRoot } from './support/compose-file.ts';
import { execForm, onlyInstruction } from './support/dockerfile.ts';
import { composeConfigWithPush, writePushSecrets } from './support/compose-push-config.ts';

const compose = readCompose();
const imageEnv = imageEnvironment();
const heraldServices = Object.entries(compose.services).filter(([, service]) => service.build === '.');
const longRunning = heraldServices.filter(([name]) => name !== 'migrate');
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'herald-compose-'));
  dirs.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('docker-compose.yml with the image', () => {
  it('builds the image for the migration, the api and the worker', () => {
    expect(heraldServices.map(([name]) => name).sort()).toEqual(['api', 'migrate', 'worker']);
  });

  it('passes Herald its arguments, since the entrypoint is Herald', () => {
    expect(execForm(onlyInstruction(imageRuntime(), 'ENTRYPOINT').args).at(-1)).toMatch(/src\/main\.ts$/);
    expect(compose.services.migrate?.command).toEqual(['migrate']);
    for (const [name, service] of longRunning) expect(service.command, `${name} runs the entrypoint as it is`).toBeUndefined();
  });

  it('keeps the long-running nodes data in a volume at the data directory of the image, and gives them time to drain', () => {
    for (const [name, service] of longRunning) {
      expect(service.volumes, name).toContain(`herald-data:${imageEnv.HERALD_DATA_DIR}`);
      expect(service.stop_grace_period, name).toBe('30s');
    }
  });

  it('checks readiness through node on the internal port, where health is served', () => {
    for (const [name, service] of longRunning) {
      const port = service.environment?.HERALD_INTERNAL_PORT;
      expect(port, `${name} serves health on an internal port`).toMatch(/^\d+$/);
      expect(service.healthcheck?.test.slice(0, 3), name).toEqual(['CMD', 'node', '-e']);
      expect(service.healthcheck?.test[3], name).toContain(`http://127.0.0.1:${port}/readyz`);
    }
  });
});

describe('docker-compose.yml for a deployment', () => {
  it('gives every Herald container the config file and the secrets folder, read-only, and no single-app variables', () => {
    for (const [name, service] of heraldServices) {
      const mounts = mountsOf(service);
      expect(mounts, name).toEqual(
        expect.arrayContaining([
          { kind: 'bind', source: join(repoRoot, 'compose/config'), target: '/etc/herald', readOnly: true },
          { kind: 'bind', source: join(repoRoot, 'compose/secrets'), target: '/run/secrets/herald', readOnly: true },
        ]),
      );
      expect(service.environment?.HERALD_CONFIG, name).toBe('/etc/herald/herald.yaml');
      // A node given a config file with apps refuses HERALD_APP_ID and its kin.
      expect(Object.keys(service.environment ?? {}).filter((variable) => /^HERALD_(APP_ID|APP_KEY|MASTER_KEY)$/.test(variable)), name).toEqual([]);
    }
  });

  it('takes other config and secrets folders from HERALD_CONFIG_DIR and HERALD_SECRETS_DIR', () => {
    const moved = readCompose({ HERALD_CONFIG_DIR: '/srv/herald/config', HERALD_SECRETS_DIR: '/srv/herald/secrets' });
    for (const [name, service] of Object.entries(moved.services).filter(([, candidate]) => candidate.build === '.')) {
      expect(service.volumes, name).toEqual(expect.arrayContaining(['/srv/herald/config:/etc/herald:ro', '/srv/herald/secrets:/run/secrets/herald:ro']));
    }
  });

  it('publishes the API and gRPC ports on 127.0.0.1 only, and never the internal port with /metrics', () => {
    const published = Object.entries(compose.services).flatMap(([name, service]) => (service.ports ?? []).map((entry) => ({ name, ...publishedPort(entry) })));
    expect(published).toEqual([
      { name: 'api', hostIp: '127.0.0.1', hostPort: '3000', containerPort: imageEnv.PORT },
      { name: 'api', hostIp: '127.0.0.1', hostPort: '50051', containerPort: '50051' },
    ]);
    for (const [name, service] of heraldServices) expect(service.environment?.HERALD_INTERNAL_PORT, name).not.toBe(imageEnv.PORT);
  });

  it('runs Redis with the append-only file on a volume of its own, since account locks live there', () => {
    const redis = compose.services.redis;
    expect(redis?.command?.join(' ')).toMatch(/--appendonly yes\b/);
    expect(mountsOf(redis ?? {})).toEqual([{ kind: 'volume', source: 'redis-data', target: '/data', readOnly: false }]);
    expect(Object.keys(compose.volumes ?? {})).toContain('redis-data');
  });

  it('interpolates as compose does: defaults, empty values and $$', () => {
    expect(interpolate('${A:-x} ${A-y} ${B:-z} ${B-w} $C $$D', { A: '', C: 'c' })).toBe('x  z w c $D');
  });
});

describe('the config each Herald container gets', () => {
  it('loads as Herald loads it: the app of compose/config/herald.yaml on Cassandra, Redis and Kafka, health on the internal port', () => {
    const volumes = tempDir();
    for (const [name, service] of heraldServices) {
      const env = new ComposeContainer(name, service, volumes).environment();
      const { config, devKeys } = loadConfig({ env });
      expect(devKeys, name).toBeNull();
      expect(config.apps.map((app) => app.id), name).toEqual(['local-trial']);
      expect(config.store, name).toMatchObject({ kind: 'cassandra', contactPoints: ['cassandra:9042'] });
      expect(config.coordination, name).toMatchObject({ kind: 'redis', url: 'redis://redis:6379' });
      expect(config.bus, name).toMatchObject({ kind: 'kafka', brokers: ['kafka:9092'] });
      expect(config.internalPort, name).toBe(9100);
      expect(config.dataDir, name).toMatch(/volumes\/herald-data$|^\/data$/);
    }
  });

  it('loads for the worker with the push block of herald.yaml in use, its files in the secrets folder', () => {
    const volumes = tempDir();
    const config = tempDir();
    const secrets = tempDir();
    cpSync(join(repoRoot, 'compose/config'), config, { recursive: true });
    writeFileSync(join(config, 'herald.yaml'), composeConfigWithPush(readFileSync(join(repoRoot, 'compose/config/herald.yaml'), 'utf8')));
    const { apnsKeyFile, serviceAccountFile } = writePushSecrets(secrets);
    const moved = readCompose({ HERALD_CONFIG_DIR: config, HERALD_SECRETS_DIR: secrets });
    const env = new ComposeContainer('worker', moved.services.worker ?? {}, volumes).environment();
    const loaded = loadConfig({ env }).config;
    expect(loaded.role).toBe('fanout,sender,scheduler');
    expect(loaded.apps[0]?.push.apns?.token?.keyFile).toBe(join(secrets, apnsKeyFile));
    expect(loaded.apps[0]?.push.fcm?.serviceAccountFile).toBe(join(secrets, serviceAccountFile));
  });
});
