import { afterAll, beforeAll, expect, it } from 'vitest';
import type { OutgoingMessage } from '../../../src/core/ports/bus.ts';
import { unacceptedGraceMs, unacceptedMessage } from '../../../src/scheduler/unaccepted-pushes.ts';
import { eventually } from '../../support/eventually.ts';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { startPushHerald, type PushHerald } from '../support/push-herald.ts';

/**
 * A node that dies between writing a push's record and publishing it leaves
 * a record that would read `in-queue` until it expires; its client got no
 * 201. The scheduler's sweep settles it as `Error` once the req_id window
 * (twice over) has passed, and does not send it. The death is played by a
 * publish that never returns; it is let go at the end without doing anything.
 */
let p: PushHerald;
let letGo: (() => void) | undefined;

beforeAll(async () => {
  p = await startPushHerald({ engine: { sweepIntervalMs: 60_000 } });
});
afterAll(async () => {
  letGo?.();
  await p?.close();
});

it('settles as Error a push whose node stopped before publishing it, and sends nothing', async () => {
  await p.saveInstallation({ deviceType: 'ios', deviceToken: deviceToken(1), channels: ['orphaned'] });
  const bus = p.h.herald.runtime.bus;
  const requests = p.h.herald.runtime.topics.requests;
  const publish = bus.publish.bind(bus);
  let held!: () => void;
  const publishHeld = new Promise<void>((resolve) => (held = resolve));
  bus.publish = (topic: string, messages: readonly OutgoingMessage[]) => {
    if (topic !== requests) return publish(topic, messages);
    bus.publish = publish;
    held();
    return new Promise<void>((resolve) => (letGo = resolve));
  };

  const first = p.send({ channels: ['orphaned'], data: { alert: 'Never accepted' } });
  await publishHeld;
  const listed = await p.h.request('GET', '/1.1/notifications', { master: true });
  const [record] = (listed.body as { results: { objectId: string; status: string }[] }).results;
  expect(record).toMatchObject({ status: 'in-queue' });
  const objectId = String(record?.objectId);

  p.clock.advance(unacceptedGraceMs + 60_000);
  const settled = await eventually('the sweep to settle the record', () => p.record(objectId), (found) => found?.status === 'Error', { timeoutMs: 20_000 });
  expect(settled).toMatchObject({ status: 'Error', errorMessage: unacceptedMessage });
  expect(p.fakes.apns.log.requestsTo(deviceToken(1))).toHaveLength(0);

  letGo?.();
  await first;
  // A publish that never happened cannot be fanned out; the settled record stays as it is.
  expect(await p.record(objectId)).toMatchObject({ status: 'Error', errorMessage: unacceptedMessage });
});
