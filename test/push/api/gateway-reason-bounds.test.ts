import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { deliveryReasons } from '../../../src/push/gateways/delivery-reasons.ts';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { androidInstallation, iosInstallation, startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';

let p: PushHerald;
beforeAll(async () => {
  p = await startPushHerald();
});
afterAll(async () => {
  await p?.close();
});

async function metricsText(): Promise<string> {
  const res = await fetch(`${p.h.baseUrl}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
}

/** The `reason` label of every `herald_push_retries_total` series. */
function retryReasons(text: string): string[] {
  return [...text.matchAll(/^herald_push_retries_total\{[^}]*reason="([^"]*)"[^}]*\}/gm)].map((match) => match[1] as string);
}

const randomWord = (): string => `Gateway${randomBytes(24).toString('hex')}`;

/**
 * Sends a push to 200 devices of a fresh channel, every answer a word of its own: 100 iOS devices refused
 * for good, 50 answered "retry later" on every one of their four attempts, 50 Android ones refused.
 */
async function pushAnsweredWithNewWords(): Promise<Record<string, unknown>> {
  const channel = uniqueName('words');
  const now = p.clock.now();
  const base = 5000 + Math.floor(Math.random() * 1_000_000) * 200;
  const refused = Array.from({ length: 100 }, (_, n) => base + n);
  const busy = Array.from({ length: 50 }, (_, n) => base + 100 + n);
  const android = Array.from({ length: 50 }, (_, n) => `${channel}-${n}`);
  await p.seed([
    ...[...refused, ...busy].map((n) => iosInstallation(n, now, { channels: [channel] })),
    ...android.map((id) => androidInstallation(id, now, { channels: [channel] })),
  ]);
  for (const n of refused) p.fakes.apns.respondTo(deviceToken(n), [{ status: 400, reason: randomWord() }]);
  // The test engine sends four times in all before it gives up.
  for (const n of busy) p.fakes.apns.respondTo(deviceToken(n), Array.from({ length: 4 }, () => ({ status: 503, reason: randomWord() })));
  for (const id of android) p.fakes.fcm.respondTo(`fcm-${id}`, [{ errorCode: randomWord().toUpperCase() }]);
  const res = await p.send({ channels: [channel], data: { alert: 'Say something new' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return p.settled(res.body.objectId, 60_000);
}

/**
 * Every series labelled by a reason, without its value. Only these may grow with what a gateway says; the
 * rest of /metrics changes for reasons of its own (a route first answered, a consumer group's lag).
 */
const reasonSeries = (text: string): string[] => text.split('\n').filter((line) => /^\w+\{[^}]*reason="/.test(line)).map((line) => line.slice(0, line.lastIndexOf('}') + 1)).sort();
const others = (text: string): number => Number(/^herald_push_retries_total\{gateway="apns",reason="Other"\} (\d+)/m.exec(text)?.[1] ?? 0);

it('counts the words a gateway makes up as Other: a record key and a metric series however many words come', async () => {
  const before = await metricsText();
  const record = await pushAnsweredWithNewWords();
  expect(record).toMatchObject({ status: 'done', devices: 200, successes: 0, errors: 200, invalidTokens: 0 });
  expect(record.errorReasons).toEqual({ Other: 200 });

  const after = await metricsText();
  const reasons = retryReasons(after);
  expect(new Set(reasons).size).toBe(reasons.length);
  for (const reason of reasons) expect(deliveryReasons).toContain(reason);
  // Three resends of each of the 50 devices answered 503.
  expect(others(after) - others(before)).toBe(150);
  expect(after).not.toMatch(/Gateway[0-9a-f]{48}/i);

  // 200 more new words add no series and no key.
  const again = await pushAnsweredWithNewWords();
  expect(again.errorReasons).toEqual({ Other: 200 });
  const last = await metricsText();
  expect(reasonSeries(last)).toEqual(reasonSeries(after));
  expect(last).not.toMatch(/Gateway[0-9a-f]{48}/i);
  expect(others(last) - others(after)).toBe(150);
});
