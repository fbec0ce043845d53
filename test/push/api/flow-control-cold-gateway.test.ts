import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TokenGrant, TokenRequest } from '../../../src/core/ports/token-buckets.ts';
import { flowControlBurst } from '../../../src/push/sender/flow-control-burst.ts';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { TcpRelay } from '../../support/gateways/tcp-relay.ts';
import { androidInstallation, iosInstallation, startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';

/**
 * A paced push whose sender has no session to APNs yet: the connect takes
 * its time (a relay holds it), and the sender must not spend `flow_control`
 * tokens meanwhile. Tokens granted then would wait in the client's queue and
 * reach the gateway together with the next grant's, more than the rate in one
 * second (the replicated phase saw 1,224 at 1000/s from a sender just started).
 */
let p: PushHerald;
let relay: TcpRelay;
let apnsPort = 0;
/** When (`performance.now()`) each take of a `flow_control` bucket was answered. */
const takes: { key: string; at: number; granted: number }[] = [];

beforeAll(async () => {
  relay = await TcpRelay.start(() => apnsPort);
  p = await startPushHerald({
    engine: { installationShards: 1, sliceSize: 100 },
    appPush: (fakes) => {
      apnsPort = fakes.apns.port;
      const apns = fakes.appPush.apns as Record<string, unknown>;
      return { ...fakes.appPush, apns: { ...apns, endpoints: { production: relay.origin, development: relay.origin } } };
    },
  });
  const coord = p.h.herald.runtime.coord;
  const takeTokens = coord.takeTokens.bind(coord);
  coord.takeTokens = async (key: string, request: TokenRequest): Promise<TokenGrant> => {
    const grant = await takeTokens(key, request);
    takes.push({ key, at: performance.now(), granted: grant.granted });
    return grant;
  };
});
afterAll(async () => {
  await p?.close();
  await relay?.close();
});

it('takes no flow_control token before its gateway’s connect is through, then reaches every device once', async () => {
  const channel = uniqueName('cold');
  const now = p.clock.now();
  await p.seed([
    ...Array.from({ length: 12 }, (_, n) => iosInstallation(100 + n, now, { channels: [channel] })),
    ...Array.from({ length: 12 }, (_, n) => androidInstallation(`cold-${n}`, now, { channels: [channel] })),
  ]);
  // One grant, the full bucket's, covers them all: the engine's clock stands still here.
  expect(24).toBeLessThanOrEqual(flowControlBurst(1000));
  relay.hold();
  // Nothing has reached for APNs yet: the connect held below is the paced slice's own.
  expect(relay.connections.accepted).toBe(0);

  const res = await p.send({ channels: [channel], data: { alert: 'Paced from cold' }, flow_control: 1000 });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const key = String(res.body.objectId);
  const ofPush = () => takes.filter((take) => take.key.endsWith(key));
  await expect.poll(() => relay.connections.held, { timeout: 10_000, message: 'the sender’s connect to APNs' }).toBe(1);
  // The slice runs and its connect waits: well within the 2 s a slice waits for its tokens in all.
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(ofPush(), 'tokens taken while the connect was held').toEqual([]);

  const releasedAt = performance.now();
  relay.release();
  expect(await p.settled(key)).toMatchObject({ status: 'done', devices: 24, successes: 24 });
  const taken = ofPush();
  expect(taken.length).toBeGreaterThan(0);
  expect(taken[0]?.at).toBeGreaterThanOrEqual(releasedAt);
  for (let n = 0; n < 12; n++) {
    expect(p.fakes.apns.log.countOf(deviceToken(100 + n))).toBe(1);
    expect(p.fakes.fcm.log.countOf(`fcm-cold-${n}`)).toBe(1);
  }
  expect(relay.connections.accepted).toBe(1);
}, 60_000);
