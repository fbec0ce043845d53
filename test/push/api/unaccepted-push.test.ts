import { afterAll, beforeAll, expect, it } from 'vitest';
import type { OutgoingMessage } from '../../../src/core/ports/bus.ts';
import { unacceptedGraceMs } from '../../../src/scheduler/unaccepted-pushes.ts';
import { eventually } from '../../support/eventually.ts';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { startPushHerald, type PushHerald } from '../support/push-herald.ts';

/**
 * A node that dies between writing a push's record and publishing it leaves
 * a record whose client got no 201. No reader shows it, and the scheduler's
 * sweep removes it once the req_id window (twice over) has passed, without
 * sending it. The death is played by a publish that never returns; it is let
 * go at the end without doing anything.
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

it('hides a push whose node stopped before publishing it, removes it after the grace, and sends nothing', async () => {
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

  const first = p.send({ channels: ['orphaned'], data: { alert: 'Never accepted' }, notification_id: 'orphaned1' });
  await publishHeld;
  const [stored] = await p.h.herald.runtime.store.pushes.findByNotificationId(p.h.app.id, 'orphaned1');
  expect(stored, 'the record written before the publish').toMatchObject({ status: 'in-queue', _accepted: false });
  const objectId = String(stored?.objectId);
  // The client got no 201 for it: no reader shows it.
  expect(await p.record(objectId)).toBeNull();
  expect((await p.h.request('GET', '/1.1/notifications/orphaned1', { master: true })).status).toBe(404);
  expect(await p.recordCount()).toBe(0);

  p.clock.advance(unacceptedGraceMs + 60_000);
  const pushes = p.h.herald.runtime.store.pushes;
  await eventually('the sweep to remove the record', () => pushes.getRecord(p.h.app.id, objectId), (found) => found === null, { timeoutMs: 20_000 });
  expect(p.fakes.apns.log.requestsTo(deviceToken(1))).toHaveLength(0);

  letGo?.();
  await first;
  // A publish that never happened cannot be fanned out, and the record stays gone.
  expect(await pushes.getRecord(p.h.app.id, objectId)).toBeNull();
  expect(p.fakes.apns.log.requestsTo(deviceToken(1))).toHaveLength(0);
});
