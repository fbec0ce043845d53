import { afterAll, beforeAll, expect, it } from 'vitest';
import { partitionForKey } from '../../../src/bus/key-partition.ts';
import type { TokenGrant, TokenRequest } from '../../../src/core/ports/token-buckets.ts';
import { flowControlBurst, staleGrantMs } from '../../../src/push/sender/flow-control-burst.ts';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { iosInstallation, startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';

let p: PushHerald;
/** Token requests the bucket could not fill: the sender asked for more and was held back. */
let refusals = 0;
/** Every take from the buckets, with what it granted. */
const takes: { key: string; request: TokenRequest; grant: TokenGrant }[] = [];
/** Holds the answer to the next take this long (real time), as for a sender that did not run meanwhile. */
let holdNextGrantMs = 0;

beforeAll(async () => {
  // One shard: a query push is one task, on one partition of push.tasks.
  p = await startPushHerald({ engine: { installationShards: 1, sliceSize: 100 } });
  const coord = p.h.herald.runtime.coord;
  const takeTokens = coord.takeTokens.bind(coord);
  coord.takeTokens = async (key: string, request: TokenRequest): Promise<TokenGrant> => {
    const grant = await takeTokens(key, request);
    if (grant.granted < request.requested) refusals += 1;
    takes.push({ key, request, grant });
    const held = holdNextGrantMs;
    holdNextGrantMs = 0;
    if (held > 0) await new Promise((resolve) => setTimeout(resolve, held));
    return grant;
  };
});
afterAll(async () => {
  await p?.close();
});

/** Seeds `count` iOS devices numbered from `first` in a channel of their own. */
async function seedChannel(count: number, first: number): Promise<{ devices: number[]; channel: string }> {
  const channel = uniqueName('paced');
  const devices = Array.from({ length: count }, (_, n) => first + n);
  await p.seed(devices.map((n) => iosInstallation(n, p.clock.now(), { channels: [channel] })));
  return { devices, channel };
}

/** Devices among `devices` the fake APNs accepted the push for. */
function reached(devices: number[]): number {
  return devices.filter((n) => p.fakes.apns.log.countOf(deviceToken(n)) > 0).length;
}

/** Resolves once the sender has asked the bucket again and been refused: it is held by the rate, not slow. */
async function heldBack(): Promise<void> {
  const before = refusals;
  await expect.poll(() => refusals, { timeout: 10_000, interval: 10, message: 'flow-control refusals' }).toBeGreaterThanOrEqual(before + 2);
}

/**
 * Advances the engine's clock by `ms` in steps no longer than the bucket holds (burst / rate), each
 * once the sender has taken what the step refilled and been held back again: a bucket left alone
 * longer than that is full and refills no further, as a real one between two takes would be.
 */
async function advancePaced(ms: number, rate: number, devices: number[], reachedBefore: number): Promise<number> {
  const stepMs = (flowControlBurst(rate) * 1000) / rate;
  let allowance = reachedBefore;
  for (let elapsed = 0; elapsed < ms; elapsed += stepMs) {
    p.clock.advance(stepMs);
    allowance = Math.min(devices.length, allowance + (rate * stepMs) / 1000);
    await expect.poll(() => reached(devices), { timeout: 10_000, interval: 10, message: 'devices reached' }).toBe(allowance);
    if (allowance < devices.length) await heldBack();
  }
  return allowance;
}

// The rate is asserted in the engine's time; on Kafka each paced slice hands its rest over through the bus, which takes
// real time, hence the long timeout.
it('never delivers more than rate × elapsed + burst, the burst a fortieth of the rate, so 2,500 devices at 1000/s take 2.475 s of the engine’s time', async () => {
  const { devices, channel } = await seedChannel(2500, 10_000);
  const rate = 1000;
  const burst = flowControlBurst(rate);
  expect(burst).toBe(25);
  // No more than 1.1 × the rate in the first second (SPEC-NOTES), with 25 ms for grants spent late and 50 ms for the way to the gateway.
  expect(rate + burst + (rate * staleGrantMs) / 1000 + rate * 0.05).toBeLessThanOrEqual(1.1 * rate);
  // A step refills no more than the bucket holds.
  const stepMs = (burst * 1000) / rate;
  const res = await p.send({ channels: [channel], data: { alert: 'Paced' }, flow_control: 1000 });
  expect(res.status, JSON.stringify(res.body)).toBe(201);

  let elapsed = 0;
  for (;;) {
    const allowance = Math.min(devices.length, burst + (rate * elapsed) / 1000);
    await expect.poll(() => reached(devices), { timeout: 10_000, interval: 10, message: 'devices reached' }).toBe(allowance);
    if (allowance === devices.length) break;
    await heldBack();
    expect(reached(devices)).toBe(allowance);
    expect((await p.record(res.body.objectId))?.status).toBe('in-queue');
    p.clock.advance(stepMs);
    elapsed += stepMs;
  }
  expect(elapsed).toBe(2475);
  expect(await p.settled(res.body.objectId)).toMatchObject({ status: 'done', devices: 2500, successes: 2500 });
  expect(p.fakes.apns.log.duplicates).toBe(0);
}, 120_000);

it('refills no more than the burst however long a bucket is left alone', async () => {
  const { devices, channel } = await seedChannel(300, 40_000);
  const rate = 1000;
  const res = await p.send({ channels: [channel], data: { alert: 'Paced' }, flow_control: rate });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await expect.poll(() => reached(devices), { timeout: 10_000, interval: 10, message: 'devices reached' }).toBe(flowControlBurst(rate));
  await heldBack();
  // A whole second at once: 1000 tokens' worth of time, but the bucket holds 25.
  p.clock.advance(1000);
  await expect.poll(() => reached(devices), { timeout: 10_000, interval: 10, message: 'devices reached' }).toBe(2 * flowControlBurst(rate));
  await heldBack();
  expect(reached(devices)).toBe(50);
  await advancePaced(250, rate, devices, 50);
  expect(await p.settled(res.body.objectId)).toMatchObject({ status: 'done', devices: 300, successes: 300 });
}, 120_000);

it('lets other pushes through while a rate-limited one waits for its turn', async () => {
  const { devices, channel } = await seedChannel(1500, 20_000);
  const paced = await p.send({ channels: [channel], data: { alert: 'Slow' }, flow_control: 1000 });
  expect(paced.status, JSON.stringify(paced.body)).toBe(201);
  const burst = flowControlBurst(1000);
  await expect.poll(() => reached(devices), { timeout: 10_000, message: 'devices reached' }).toBe(burst);
  await heldBack();

  // Pushes whose task lands on another partition than the waiting one go out at once.
  const partitions = p.h.herald.runtime.config.bus.topics.pushTasks;
  const held = partitionForKey(`${paced.body.objectId}/s0`, partitions);
  const others: { objectId: string; token: string }[] = [];
  for (let n = 0; others.length < 3 && n < 50; n += 1) {
    const token = deviceToken(30_000 + n);
    const res = await p.sendToDevices({ device_type: 'ios', device_ids: [token], data: { alert: 'Quick' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    if (partitionForKey(`${res.body.objectId}/d0`, partitions) !== held) others.push({ objectId: res.body.objectId as string, token });
  }
  expect(others).toHaveLength(3);
  for (const other of others) {
    expect(await p.settled(other.objectId)).toMatchObject({ status: 'done', successes: 1 });
    expect(p.fakes.apns.deliveriesTo(other.token)).toHaveLength(1);
  }
  expect((await p.record(paced.body.objectId))?.status).toBe('in-queue');
  expect(reached(devices)).toBe(burst);

  // And the paced one finishes once its time has come.
  await advancePaced(1500 - burst, 1000, devices, burst);
  expect(reached(devices)).toBe(1500);
  expect(await p.settled(paced.body.objectId)).toMatchObject({ status: 'done', successes: 1500 });
  // Longer than its waits together (each has its own deadline and message), so a slow one fails by name, not by the test timeout.
}, 90_000);

it('gives back a grant it could not spend within 25 ms of asking, and spends it once asked again, so held-up sends do not bunch', async () => {
  const { devices, channel } = await seedChannel(200, 50_000);
  const rate = 1000;
  const burst = flowControlBurst(rate);
  expect(staleGrantMs).toBe(25);
  const before = takes.length;
  // The push's first grant reaches the sender 120 ms after it asked.
  holdNextGrantMs = 120;
  const res = await p.send({ channels: [channel], data: { alert: 'Held up' }, flow_control: rate });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await expect.poll(() => reached(devices), { timeout: 10_000, interval: 10, message: 'devices reached' }).toBe(burst);
  await heldBack();
  const [held, again] = takes.slice(before);
  // The late grant was not spent: its tokens went back with the next take, which granted them again, in the engine's same instant.
  expect(held?.grant.granted).toBe(burst);
  expect(held?.request.returned).toBeUndefined();
  expect(again?.request).toMatchObject({ returned: burst, now: held?.request.now });
  expect(again?.grant.granted).toBe(burst);
  expect(reached(devices)).toBe(burst);
  await advancePaced(200 - burst, rate, devices, burst);
  expect(await p.settled(res.body.objectId)).toMatchObject({ status: 'done', devices: 200, successes: 200 });
  expect(p.fakes.apns.log.duplicates).toBe(0);
}, 60_000);
