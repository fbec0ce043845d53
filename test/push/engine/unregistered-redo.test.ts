import { afterAll, beforeAll, expect, it } from 'vitest';
import { ServiceUnavailableError } from '../../../src/core/errors.ts';
import type { SliceResult } from '../../../src/core/ports/push-store.ts';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { startPushGatewayFakes, type PushGatewayFakes } from '../../support/push-gateways.ts';
import { startTestHerald, type TestHerald } from '../../support/test-herald.ts';

let fakes: PushGatewayFakes;
let h: TestHerald;
/** Slice writes that carry installations to remove, as the store took them. */
const recorded: SliceResult[] = [];
/** While set, a write listing installations to remove is applied and then fails, as a sender dying right after it would leave it. */
let loseNextListingWrite = false;

beforeAll(async () => {
  fakes = await startPushGatewayFakes();
  h = await startTestHerald({ push: fakes.appPush, engine: fakes.engine({ installationShards: 1, sliceSize: 50 }) });
  const pushes = h.herald.runtime.store.pushes;
  const recordSlice = pushes.recordSlice.bind(pushes);
  pushes.recordSlice = async (appId, pushId, result) => {
    await recordSlice(appId, pushId, result);
    if ((result.unregistered?.length ?? 0) === 0) return;
    recorded.push(result);
    if (!loseNextListingWrite) return;
    loseNextListingWrite = false;
    throw new ServiceUnavailableError('Cassandra');
  };
});
afterAll(async () => {
  await h?.close();
  await fakes?.close();
});

const installationsOf = async (numbers: number[]) => {
  const found = await Promise.all(numbers.map((n) => h.request('GET', `/1.1/installations?where=${encodeURIComponent(JSON.stringify({ deviceToken: deviceToken(n) }))}`, { master: true })));
  return found.flatMap((answer) => answer.body.results as { objectId: string }[]);
};

/**
 * The installations a slice finds unregistered are removed after the slice is
 * recorded (a slice redone before still targets them). A sender that stops in
 * between — here the write of the slice applied, its answer lost — leaves the
 * list in the slice's record, and the slice's redo removes them.
 */
it('removes the installations found unregistered when the slice is redone after it was recorded', async () => {
  const numbers = Array.from({ length: 12 }, (_, n) => 700 + n);
  const gone = numbers.filter((n) => n % 3 === 0);
  for (const n of numbers) expect((await h.request('POST', '/1.1/installations', { body: { deviceType: 'ios', deviceToken: deviceToken(n) } })).status).toBe(201);
  for (const n of gone) fakes.apns.respondTo(deviceToken(n), [{ status: 410, reason: 'Unregistered', timestamp: h.clock.now() }]);
  loseNextListingWrite = true;

  const sent = await h.request('POST', '/1.1/push', { master: true, body: { where: { deviceType: 'ios' }, data: { alert: 'some are gone' } } });
  expect(sent.status).toBe(201);
  await expect
    .poll(async () => (await h.request('GET', `/1.1/tables/Notifications/${sent.body.objectId}`)).body.status, { timeout: 20_000, message: 'status of the push record' })
    .toBe('done');

  expect(loseNextListingWrite, 'the write listing them failed once').toBe(false);
  expect(recorded.map((result) => result.unregistered?.length)).toEqual([gone.length]);
  await expect.poll(async () => (await installationsOf(gone)).length, { timeout: 10_000, message: 'installations of the unregistered tokens left' }).toBe(0);
  expect(await installationsOf(numbers.filter((n) => !gone.includes(n)))).toHaveLength(numbers.length - gone.length);
  const record = await h.request('GET', `/1.1/tables/Notifications/${sent.body.objectId}`);
  expect(record.body).toMatchObject({ devices: numbers.length, successes: numbers.length - gone.length, invalidTokens: gone.length, errorReasons: { Unregistered: gone.length } });
  // Once removed, the slice's record no longer lists them.
  const slice = await h.herald.runtime.store.pushes.getSlice(h.app.id, sent.body.objectId as string, recorded[0]?.sliceKey ?? 'none');
  expect(slice).toMatchObject({ final: true, unregistered: [], counts: { invalidTokens: gone.length } });
});
