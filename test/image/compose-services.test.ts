import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropKeyspace, testKeyspace } from '../store/cassandra-test-keyspace.ts';
import { eventually } from '../support/eventually.ts';
import { runHeraldCommand, startHeraldProcess, type HeraldProcess } from '../support/herald-process.ts';
import { serviceEndpoints } from '../support/service-endpoints.ts';
import { deleteKafkaTopics } from '../support/test-backends.ts';
import { ComposeContainer } from './support/compose-container.ts';
import { readCompose, repoRoot } from './support/compose-file.ts';
import { composeConfigWithPush, writePushSecrets } from './support/compose-push-config.ts';

/** Where the compose file's service names point on this machine: the local Cassandra, Kafka and Redis. */
const localServices: Record<string, string> = {
  'cassandra:9042': serviceEndpoints.cassandra.contactPoints[0],
  'kafka:9092': serviceEndpoints.kafka.brokers[0],
  'redis:6379': new URL(serviceEndpoints.redis.url).host,
};

/**
 * docker-compose.yml without Docker: each Herald service's command runs as
 * the container would run it (the image's ENV under the service's
 * environment, its mounts as folders here, the config file rendered), with
 * the service names pointed at the local services. What the test changes
 * beyond that keeps runs apart: a keyspace and topic prefix of its own, and
 * ports the kernel picks.
 */
describe('docker-compose.yml on the local Cassandra, Kafka and Redis', () => {
  const work = mkdtempSync(join(tmpdir(), 'herald-compose-run-'));
  const keyspace = testKeyspace();
  const topicPrefix = `${keyspace}.`;
  const configDir = join(work, 'config');
  const secretsDir = join(work, 'secrets');
  const started: HeraldProcess[] = [];
  let compose: ReturnType<typeof readCompose>;

  /** The environment of a service's container, pointed at the local services. */
  function localEnvironment(name: string): Record<string, string> {
    const service = compose.services[name];
    if (service === undefined) throw new Error(`docker-compose.yml has no service ${name}`);
    const env = new ComposeContainer(name, service, work).environment();
    for (const [variable, value] of Object.entries(env)) {
      env[variable] = Object.entries(localServices).reduce((text, [inCompose, local]) => text.replaceAll(inCompose, local), value);
    }
    return { ...env, HERALD_CASSANDRA_KEYSPACE: keyspace, HERALD_KAFKA_TOPIC_PREFIX: topicPrefix, PORT: '0', HERALD_GRPC_PORT: '0', HERALD_INTERNAL_PORT: '0', HOST: '127.0.0.1' };
  }

  /** Starts a long-running service's command (the entrypoint with no arguments) and waits for /readyz. */
  async function startService(name: string): Promise<HeraldProcess> {
    const node = await startHeraldProcess(localEnvironment(name), compose.services[name]?.command ?? []);
    started.push(node);
    await eventually('/readyz to answer 200', async () => (await fetch(`http://127.0.0.1:${node.internalPort}/readyz`)).status, (status) => status === 200, { timeoutMs: 60_000 });
    return node;
  }

  beforeAll(() => {
    // The shipped config folder with its push block in use, and the credentials it names.
    cpSync(join(repoRoot, 'compose/config'), configDir, { recursive: true });
    writeFileSync(join(configDir, 'herald.yaml'), composeConfigWithPush(readFileSync(join(repoRoot, 'compose/config/herald.yaml'), 'utf8')));
    cpSync(join(repoRoot, 'compose/secrets'), secretsDir, { recursive: true });
    writePushSecrets(secretsDir);
    compose = readCompose({ HERALD_CONFIG_DIR: configDir, HERALD_SECRETS_DIR: secretsDir });
  });

  afterAll(async () => {
    await Promise.all(started.map((node) => node.stop()));
    await dropKeyspace(keyspace);
    await deleteKafkaTopics(topicPrefix);
    rmSync(work, { recursive: true, force: true });
  }, 120_000);

  it('migrates with the migrate service command', async () => {
    const migrate = await runHeraldCommand(compose.services.migrate?.command ?? [], localEnvironment('migrate'));
    expect(migrate.code, migrate.output).toBe(0);
    expect(migrate.output).toContain('bus topics exist');
  }, 120_000);

  it('starts the api, with /metrics on the internal port and not on the public one', async () => {
    const api = await startService('api');
    expect(api.port).toBeGreaterThan(0);
    expect(api.internalPort).toBeGreaterThan(0);
    expect((await fetch(`http://127.0.0.1:${api.port}/metrics`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${api.internalPort}/metrics`)).status).toBe(200);
    const me = await fetch(`http://127.0.0.1:${api.port}/1.1/users/me`, { headers: { 'X-SVC-Id': 'local-trial', 'X-SVC-Key': 'local-trial-app-key' } });
    // The configured app's keys are taken: no session, not a bad key.
    expect(await me.json()).toMatchObject({ code: 206 });
  }, 120_000);

  it('starts the worker with a config file whose app has APNs and FCM credentials', async () => {
    const worker = await startService('worker');
    expect(worker.port, 'the worker serves no API').toBe(0);
    const ready = (await (await fetch(`http://127.0.0.1:${worker.internalPort}/readyz`)).json()) as { roles: Record<string, unknown> };
    expect(Object.keys(ready.roles).sort()).toEqual(['fanout', 'scheduler', 'sender']);
  }, 120_000);
});
