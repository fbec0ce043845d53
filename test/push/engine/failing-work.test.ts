import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceUnavailableError } from '../../../src/core/errors.ts';
import type { InstallationStore } from '../../../src/core/ports/installation-store.ts';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { startPushGatewayFakes, type PushGatewayFakes } from '../../support/push-gateways.ts';
import { startTestHerald, type TestHerald } from '../../support/test-herald.ts';

/** Small, so that a slice's reads are told apart from the scheduler's housekeeping sweep (pages of 1,000). */
const sliceSize = 10;

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
  /** Failures for the reads of one shard only, taken before `failures`. */
  let shardFailures = new Map<number, Error[]>();
  let reads = 0;
  /** Writes of the `Error` status that fail, as an outage would, before they work again. */
  let errorWritesToFail = 0;
  /** While set, the fan-out's write marking the record in-queue waits until a sender has written `Error`. */
  let fanOutWaitsForError: PromiseWithResolvers<void> | null = null;
  beforeAll(async () => {
    fakes = await startPushGatewayFakes();
    h = await startTestHerald({ push: fakes.appPush, engine: fakes.engine({ installationShards: 2, sliceSize }) });
    installations = h.herald.runtime.store.installations;
    const scanShard = installations.scanShard.bind(installations);
    // The sender's next reads fail as told, then reads work again. The
    // scheduler's first housekeeping sweep, which may run while a test does,
    // reads the same shards: it is let through and not counted.
    installations.scanShard = (appId, scan) => {
      if (scan.limit !== sliceSize) return scanShard(appId, scan);
      reads += 1;
      const failure = shardFailures.get(scan.shard)?.shift() ?? failures.shift();
      return failure === undefined ? scanShard(appId, scan) : Promise.reject(failure);
    };
    const pushes = h.herald.runtime.store.pushes;
    const setFields = pushes.setFields.bind(pushes);
    pushes.setFields = async (appId, pushId, fields, updatedAt) => {
      if (fields.status === 'Error' && errorWritesToFail > 0) {
        errorWritesToFail -= 1;
        throw new ServiceUnavailableError('Cassandra');
      }
      const waitFor = fanOutWaitsForError;
      if (waitFor !== null && fields.expectedTasks !== undefined) await waitFor.promise;
      const applied = await setFields(appId, pushId, fields, updatedAt);
      if (fields.status === 'Error') waitFor?.resolve();
      return applied;
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

  it('still ends a push as Error when giving up met an outage, once the failed slice is offered again', async () => {
    fakes.apns.reset();
    const doomed = new Error('page of installations could not be read');
    shardFailures = new Map([[0, [doomed, doomed]]]);
    errorWritesToFail = 1;
    reads = 0;
    const sent = await h.request('POST', '/1.1/push', { master: true, body: { data: { alert: 'doomed twice' } } });
    await expect.poll(async () => (await record(sent.body.objectId)).status, { timeout: 20_000, message: 'status of the push record' }).toBe('Error');
    expect(errorWritesToFail).toBe(0);
    // Shard 0's slice was offered again after the failed write, read its page again and gave up again; shard 1's read once.
    expect(shardFailures.get(0)).toHaveLength(0);
    // Shard 1's slice may still be on its way: the record reads Error as soon as shard 0 gave up.
    await expect.poll(() => reads, { timeout: 20_000, message: 'reads of both shards' }).toBe(3);
  });

  it('keeps a push given up as Error when the fan-out marks it in-queue only afterwards', async () => {
    fakes.apns.reset();
    shardFailures = new Map([[1, [new Error('page of installations could not be read')]]]);
    fanOutWaitsForError = Promise.withResolvers<void>();
    reads = 0;
    try {
      const sent = await h.request('POST', '/1.1/push', { master: true, body: { data: { alert: 'given up before it was in-queue' } } });
      const pushId = String(sent.body.objectId);
      // Settled (done or Error), and the fan-out's in-queue, held until shard 1 gave up, has landed.
      const settled = async () => {
        const stored = await h.herald.runtime.store.pushes.getRecord(h.app.id, pushId);
        const status = (await record(pushId)).status;
        return stored?.expectedTasks === 2 && (status === 'done' || status === 'Error') ? status : `not yet (${status})`;
      };
      await expect.poll(settled, { timeout: 20_000, message: 'push settled after the fan-out marked it in-queue' }).not.toMatch(/^not yet/);
      expect((await record(pushId)).status).toBe('Error');
      expect((await record(pushId)).errorMessage).toBe('Sending failed: page of installations could not be read');
      expect(shardFailures.get(1)).toHaveLength(0);
      await expect.poll(() => reads, { timeout: 20_000, message: 'reads of both shards' }).toBe(2);
    } finally {
      fanOutWaitsForError.resolve();
      fanOutWaitsForError = null;
    }
  });
});
