import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceUnavailableError } from '../../../src/core/errors.ts';
import type { TokenBuckets } from '../../../src/core/ports/token-buckets.ts';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { startPushGatewayFakes, type PushGatewayFakes } from '../../support/push-gateways.ts';
import { startTestHerald, type TestHerald } from '../../support/test-herald.ts';

/**
 * A paced push whose token bucket cannot be read after part of a slice has
 * gone out (Redis restarting): what went out is counted, the rest is left to
 * the next slice, and no device gets the push twice. Found by the cluster
 * fault test, where a Redis restart made a redone slice send again.
 */
describe('a flow_control push whose token bucket goes away mid-slice', () => {
  let fakes: PushGatewayFakes;
  let h: TestHerald;
  let takes: ((...args: Parameters<TokenBuckets['takeTokens']>) => ReturnType<TokenBuckets['takeTokens']>)[] = [];
  const devices = 10;

  beforeAll(async () => {
    fakes = await startPushGatewayFakes();
    h = await startTestHerald({ push: fakes.appPush, engine: fakes.engine({ installationShards: 1, sliceSize: devices }) });
    const coord = h.herald.runtime.coord;
    const take = coord.takeTokens.bind(coord);
    // The next takes answer as told, then the bucket works again.
    coord.takeTokens = (key, request) => (takes.shift() ?? take)(key, request);
    for (let n = 0; n < devices; n++) {
      expect((await h.request('POST', '/1.1/installations', { body: { deviceType: 'ios', deviceToken: deviceToken(700 + n) } })).status).toBe(201);
    }
  });
  afterAll(async () => {
    await h?.close();
    await fakes?.close();
  });

  it('counts the deliveries already out, hands the rest to the next slice, and sends nobody the push twice', async () => {
    takes = [
      // Another sender drew most of the bucket: four of the ten come now.
      () => Promise.resolve({ granted: 4, retryAfterMs: 10 }),
      () => Promise.reject(new ServiceUnavailableError('Redis')),
    ];
    const sent = await h.request('POST', '/1.1/push', { master: true, body: { flow_control: 1000, data: { alert: 'paced through an outage' } } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);

    await fakes.apns.waitForDeliveries(devices, 20_000);
    const record = async () => (await h.request('GET', `/1.1/tables/Notifications/${sent.body.objectId}`)).body;
    await expect.poll(async () => (await record()).status, { timeout: 20_000, message: 'status of the push record' }).toBe('done');
    expect(await record()).toMatchObject({ devices, successes: devices, errors: 0 });
    expect(takes).toHaveLength(0);
    expect(fakes.apns.log.distinctTokens).toBe(devices);
    expect(fakes.apns.log.duplicates).toBe(0);
    expect(fakes.apns.log.deliveryCount).toBe(devices);
  });
});
