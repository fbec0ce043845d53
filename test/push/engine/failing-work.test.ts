import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceUnavailableError } from '../../../src/core/errors.ts';
import type { InstallationStore } from '../../../src/core/ports/installation-store.ts';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { startPushGatewayFakes, type PushGatewayFakes } from '../../support/push-gateways.ts';
import { startTestHerald, type TestHerald } from '../../support/test-herald.ts';

/**
 * Work that fails because a service is away is retried until it succeeds;
 * work that fails for any other reason would fail the same way forever, so
 * the push is settled as `Error` and its message is not offered again.
 */
describe('failing push work', () => {
  let fakes: PushGatewayFakes;
  let h: TestHerald;
  let installations: InstallationStore;
  let failures: Error[] = [];
  let reads = 0;
  beforeAll(async () => {
    fakes = await startPushGatewayFakes();
    h = await startTestHerald({ push: fakes.appPush, engine: fakes.engine({ installationShards: 2, sliceSize: 10 }) });
    installations = h.herald.runtime.store.installations;
    const scanShard = installations.scanShard.bind(installations);
    // The next reads fail as told, then reads work again.
    installations.scanShard = (appId, scan) => {
      reads += 1;
      const failure = failures.shift();
      return failure === undefined ? scanShard(appId, scan) : Promise.reject(failure);
    };
    for (let n = 0; n < 6; n++) {
      expect((await h.request('POST', '/1.1/installations', { body: { deviceType: 'ios', deviceToken: deviceToken(900 + n) } })).status).toBe(201);
    }
  });
  afterAll(async () => {
    await h?.close();
    await fakes?.close();
  });

  const record = async (objectId: string) => (await h.request('GET', `/1.1/tables/Notifications/${objectId}`)).body;

  it('retries a slice that met an outage until it delivers', async () => {
    fakes.apns.reset();
    failures = [new ServiceUnavailableError('Cassandra'), new ServiceUnavailableError('Cassandra')];
    const sent = await h.request('POST', '/1.1/push', { master: true, body: { data: { alert: 'after an outage' } } });
    await fakes.apns.waitForDeliveries(6, 20_000);
    await expect.poll(async () => (await record(sent.body.objectId)).status, { timeout: 20_000, message: 'status of the push record' }).toBe('done');
    expect(await record(sent.body.objectId)).toMatchObject({ devices: 6, successes: 6 });
    expect(failures).toHaveLength(0);
  });

  it('settles a push whose slice fails for good as Error, instead of retrying it forever', async () => {
    fakes.apns.reset();
    failures = [new Error('page of installations could not be read')];
    reads = 0;
    const sent = await h.request('POST', '/1.1/push', { master: true, body: { data: { alert: 'doomed' } } });
    await expect.poll(async () => (await record(sent.body.objectId)).status, { timeout: 20_000, message: 'status of the push record' }).toBe('Error');
    expect((await record(sent.body.objectId)).errorMessage).toBe('Sending failed: page of installations could not be read');
    // Each shard's one slice read its page once: the failed one was not tried again.
    await expect
      .poll(async () => (await h.herald.runtime.metrics.text()).includes('herald_push_tasks_in_flight 0'), { timeout: 20_000, message: 'no task slice in flight' })
      .toBe(true);
    expect(failures).toHaveLength(0);
    expect(reads).toBe(2);
  });
});
