import { expect } from 'vitest';
import { eventually } from '../support/eventually.ts';
import type { PushGatewayFakes } from '../support/push-gateways.ts';
import type { ApiAnswer, ApiClient } from './api-client.ts';
import type { Audience } from './device-fleet.ts';

/** What one gateway received of one push, against the addresses it should have reached. */
export interface DeliveryVerdict {
  gateway: 'apns' | 'fcm';
  expected: number;
  /** Distinct addresses that accepted the push. */
  received: number;
  missing: string[];
  unexpected: string[];
  /** Accepted deliveries beyond the first to one address, summed. */
  duplicates: number;
}

/** Compares the per-address counts a fake kept for one push with the addresses it should have reached. */
export function compareDeliveries(gateway: DeliveryVerdict['gateway'], expected: ReadonlySet<string>, received: ReadonlyMap<string, number>): DeliveryVerdict {
  const missing = [...expected].filter((address) => !received.has(address));
  const unexpected = [...received.keys()].filter((address) => !expected.has(address));
  let duplicates = 0;
  for (const count of received.values()) duplicates += count - 1;
  return { gateway, expected: expected.size, received: received.size, missing, unexpected, duplicates };
}

/** Both fakes' verdicts on the push whose payload carries `marker`. */
export function deliveriesOf(fakes: PushGatewayFakes, marker: string, audience: Audience): [DeliveryVerdict, DeliveryVerdict] {
  return [
    compareDeliveries('apns', audience.apns, fakes.apns.log.deliveriesTagged(marker)),
    compareDeliveries('fcm', audience.fcm, fakes.fcm.log.deliveriesTagged(marker)),
  ];
}

/** One line per gateway: expected, received, and a few of the addresses missing or unexpected. */
export function describeDeliveries(verdicts: readonly DeliveryVerdict[]): string {
  return verdicts
    .map(
      ({ gateway, expected, received, missing, unexpected, duplicates }) =>
        `${gateway}: ${expected} expected, ${received} received, ${missing.length} missing${sample(missing)}, ` +
        `${unexpected.length} unexpected${sample(unexpected)}, ${duplicates} duplicates`,
    )
    .join('; ');
}

function sample(addresses: string[]): string {
  return addresses.length === 0 ? '' : ` (e.g. ${addresses.slice(0, 3).join(', ')})`;
}

export interface ExactlyOnceOptions {
  /** A client of a live API node, asked afresh on each read (a node may be killed meanwhile). */
  api: () => ApiClient;
  fakes: PushGatewayFakes;
  /** Duplicates allowed over both gateways; 0 unless a crash makes a slice go out twice. */
  maxDuplicates?: number;
  /** How long the push may take to read `done`. */
  timeoutMs?: number;
}

/**
 * Waits until the push record of `marker` (its notification_id) reads
 * `done`, then checks that the fakes received the push at every address of
 * `audience`, nowhere else, at most `maxDuplicates` times more than once in
 * all, and that the record's counters are exact. Answers the verdicts.
 */
export async function expectExactlyOnce(marker: string, audience: Audience, options: ExactlyOnceOptions): Promise<[DeliveryVerdict, DeliveryVerdict]> {
  const record = await settledRecord(marker, options, audience);
  const verdicts = deliveriesOf(options.fakes, marker, audience);
  const summary = `push ${marker}: ${describeDeliveries(verdicts)}; record ${JSON.stringify(counters(record.body))}`;
  for (const verdict of verdicts) {
    expect(verdict.missing, summary).toEqual([]);
    expect(verdict.unexpected, summary).toEqual([]);
  }
  expect(verdicts[0].duplicates + verdicts[1].duplicates, summary).toBeLessThanOrEqual(options.maxDuplicates ?? 0);
  const devices = audience.apns.size + audience.fcm.size;
  expect(counters(record.body), summary).toEqual({
    status: 'done',
    devices,
    successes: devices,
    errors: 0,
    invalidTokens: 0,
    iosSuccesses: audience.apns.size,
    androidSuccesses: audience.fcm.size,
    errorReasons: {},
  });
  return verdicts;
}

/** Waits until `GET /1.1/notifications/<marker>` reads `done` (or `Error`, which fails at once). */
export async function settledRecord(marker: string, options: ExactlyOnceOptions, audience?: Audience): Promise<ApiAnswer> {
  let last: ApiAnswer | undefined;
  return eventually(
    `the push record ${marker} to read done`,
    async () => (last = await options.api().notification(marker)),
    (answer) => {
      if (answer.status === 200 && answer.body.status === 'Error') throw new Error(`push ${marker} ended in Error: ${JSON.stringify(answer.body)}`);
      return answer.status === 200 && answer.body.status === 'done';
    },
    {
      timeoutMs: options.timeoutMs ?? 90_000,
      intervalMs: 250,
      detail: () =>
        `last answer ${last === undefined ? 'none' : `${last.status} ${JSON.stringify(counters(last.body))}`}` +
        (audience === undefined ? '' : `; ${describeDeliveries(deliveriesOf(options.fakes, marker, audience))}`),
    },
  );
}

function counters(record: ApiAnswer['body']): Record<string, unknown> {
  const { status, devices, successes, errors, invalidTokens, iosSuccesses, androidSuccesses, errorReasons } = record;
  return { status, devices, successes, errors, invalidTokens, iosSuccesses, androidSuccesses, errorReasons };
}
