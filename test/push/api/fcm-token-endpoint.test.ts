import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { TokenEndpointBehaviour } from '../../support/gateways/fake-fcm.ts';
import { androidInstallation, startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';

let p: PushHerald;
beforeAll(async () => {
  p = await startPushHerald();
});
afterAll(async () => {
  await p?.close();
});
beforeEach(() => {
  // Past the client's hold after a failed token fetch (30 s at most), so each test meets the endpoint afresh.
  p.clock.advance(60_000);
});

/** Pushes to two Android devices of a fresh channel while the token endpoint behaves as told; answers the settled record. */
async function pushWhileTokenEndpoint(behaviour: TokenEndpointBehaviour): Promise<Record<string, unknown>> {
  p.fakes.fcm.setTokenEndpoint(behaviour);
  const channel = uniqueName('token');
  const now = p.clock.now();
  await p.seed([androidInstallation(`${channel}-1`, now, { channels: [channel] }), androidInstallation(`${channel}-2`, now, { channels: [channel] })]);
  const res = await p.send({ channels: [channel], data: { alert: 'Android' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  // The test engine's request deadline is 2 s; four attempts share one token fetch and then its hold.
  return p.settled(res.body.objectId, 20_000);
}

const tokenUnavailable = { status: 'done', devices: 2, successes: 0, errors: 2, errorReasons: { AccessTokenUnavailable: 2 } };

it('finishes a push whose token endpoint trickles its answer a byte every 100 ms', async () => {
  expect(await pushWhileTokenEndpoint({ kind: 'trickle', intervalMs: 100 })).toMatchObject(tokenUnavailable);
  await expect.poll(() => p.fakes.fcm.tokenEndpointStats.open).toBe(0);
});

it('finishes a push whose token endpoint streams without end, reading no more than 64 KiB of it', async () => {
  const before = p.fakes.fcm.tokenEndpointStats.bytesSent;
  expect(await pushWhileTokenEndpoint({ kind: 'stream' })).toMatchObject(tokenUnavailable);
  await expect.poll(() => p.fakes.fcm.tokenEndpointStats.open).toBe(0);
  expect(p.fakes.fcm.tokenEndpointStats.bytesSent - before).toBeLessThan(4 * 1024 * 1024);
});

it('finishes a push whose token endpoint never answers', async () => {
  expect(await pushWhileTokenEndpoint({ kind: 'hang' })).toMatchObject(tokenUnavailable);
  await expect.poll(() => p.fakes.fcm.tokenEndpointStats.open).toBe(0);
});

it('finishes a push whose token endpoint answers 500 with an error body', async () => {
  expect(await pushWhileTokenEndpoint({ kind: 'error', status: 500, body: '{"error":"internal_failure"}' })).toMatchObject(tokenUnavailable);
});

it('finishes a push whose token endpoint refuses the service account with 400', async () => {
  const body = '{"error":"invalid_grant","error_description":"Invalid JWT Signature."}';
  expect(await pushWhileTokenEndpoint({ kind: 'error', status: 400, body })).toMatchObject({ ...tokenUnavailable, errorReasons: { AccessTokenRefused: 2 } });
});

it('delivers again once the token endpoint answers', async () => {
  expect(await pushWhileTokenEndpoint({ kind: 'normal' })).toMatchObject({ status: 'done', devices: 2, successes: 2, errors: 0 });
});
