import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from './api-client.ts';
import { settledRecord } from './delivery-check.ts';
import { makeFleet, saveFleet, type FleetDevice } from './device-fleet.ts';
import { PushCluster, type ClusterSettings } from './push-cluster.ts';
import { eventually } from '../support/eventually.ts';
import type { DeliveryTagger } from '../support/gateways/delivery-log.ts';

const deviceCount = 2400;
const settings: ClusterSettings = {
  sliceSize: 100,
  senderConcurrency: 2,
  installationShards: 8,
  pushTaskPartitions: 4,
  // Kafka's least: the killed sender's partitions move after 6 s.
  sessionTimeoutMs: 6000,
  retry: { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 500 },
};
/**
 * Every answer of the fakes comes this late, so that the push is still under
 * way when a sender is killed, and takes longer than its expiry: the devices
 * it has not reached by then are expired. The slices the killed sender held
 * are redone about 6 s after the kill, well before.
 */
const answerDelayMs = 2000;
const expirySeconds = 20;

const markerPattern = /"marker":"([A-Za-z0-9]{1,16})"/;
const tagger: DeliveryTagger = (body) => markerPattern.exec(body.toString('latin1'))?.[1];

interface LoggedEntry {
  installation: string | null;
  tokenSuffix: string | null;
  sliceKey: string;
  outcome: string;
  reason: string | null;
  status: number | null;
  attempts: number;
  unregistered: boolean;
}

/** What each iOS device of the fleet is scripted to answer (Android devices are delivered). */
function scriptOf(device: FleetDevice): 'badToken' | 'unregistered' | 'throttled' | 'unavailable' | 'delivered' {
  if (device.platform !== 'ios') return 'delivered';
  switch (device.n % 16) {
    case 2:
      return 'badToken';
    case 8:
      return 'unregistered';
    case 4:
      return 'throttled';
    case 6:
      return 'unavailable';
    default:
      return 'delivered';
  }
}

/** The log entry a device's last answer from the fakes calls for; undefined: no request of the push reached the fakes. */
function expectedEntry(lastAnswer: number | 'stalled' | undefined): Pick<LoggedEntry, 'outcome' | 'reason'> & { status?: number } {
  switch (lastAnswer) {
    case 200:
      return { outcome: 'delivered', reason: null, status: 200 };
    case 400:
      return { outcome: 'invalidToken', reason: 'BadDeviceToken', status: 400 };
    case 410:
      return { outcome: 'invalidToken', reason: 'Unregistered', status: 410 };
    default:
      // Not sent before the push expired, or answered 429/503 and expired before the resend.
      return { outcome: 'failed', reason: 'Expired' };
  }
}

/**
 * The delivery log stays exact when a sender is SIGKILLed in the middle of a
 * push and its slices are redone by the other one, and the push expires
 * before it has reached every device: after the push reads done, the log
 * lists exactly one entry per targeted device — a redone slice replaces its
 * entries, it does not add to them — and each entry's outcome, reason and
 * status are what the fake gateways answered that device last, `Expired`
 * for each device no request reached before the expiry (and for a 429 or
 * 503 whose resend came after it). Runs on the production shape
 * (PushCluster: Cassandra, Redis, Kafka).
 */
describe('the delivery log of a push whose sender is killed mid-push', () => {
  let cluster: PushCluster;
  const fleet = makeFleet(deviceCount);
  const bySuffix = new Map(fleet.map((device) => [device.address.slice(-8), device]));

  const liveApi = (): ApiClient => {
    try {
      return cluster.api('api-1');
    } catch {
      return cluster.api('api-2');
    }
  };

  beforeAll(async () => {
    cluster = await PushCluster.start({ tagger, settings });
    const saved = await saveFleet(fleet, [cluster.api('api-1'), cluster.api('api-2')], 50);
    expect(saved.saved).toBe(deviceCount);
  }, 300_000);

  afterAll(async () => {
    await cluster?.close();
  }, 120_000);

  it('lists exactly one final entry per device, matching what the fakes answered, after a redone slice', async () => {
    expect(bySuffix.size, 'the token suffixes tell the devices apart').toBe(deviceCount);
    const { apns, fcm } = cluster.fakes;
    apns.setDefaultAnswer({ status: 200, delayMs: answerDelayMs });
    fcm.setDefaultAnswer({ status: 200, delayMs: answerDelayMs });
    for (const device of fleet) {
      // Enough answers for a redone slice to get the same ones as the first run.
      const script = scriptOf(device);
      if (script === 'badToken') apns.respondTo(device.address, Array.from({ length: 4 }, () => ({ status: 400, reason: 'BadDeviceToken' })));
      // Its installation goes only once the slice is recorded: a slice redone after the kill still targets it.
      if (script === 'unregistered') apns.respondTo(device.address, Array.from({ length: 4 }, () => ({ status: 410, reason: 'Unregistered' })));
      if (script === 'throttled') apns.respondTo(device.address, [{ status: 429, reason: 'TooManyRequests' }]);
      if (script === 'unavailable') apns.respondTo(device.address, [{ status: 503, reason: 'ServiceUnavailable' }]);
    }

    const marker = `redo${randomBytes(4).toString('hex')}`;
    const acceptedAt = performance.now();
    const sent = await cluster
      .api('api-1')
      .push({ where: {}, data: { alert: `Everyone ${marker}`, marker }, notification_id: marker, expiration_interval: expirySeconds });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);

    const reached = () => apns.log.deliveriesTagged(marker).size + fcm.log.deliveriesTagged(marker).size;
    // Killed once it has delivered part of the push and holds slices in hand.
    await eventually('sender-1 in the middle of the push', async () => reached() >= 400 && (await inFlight(cluster, 'sender-1')) > 0, (ready) => ready, {
      timeoutMs: 90_000,
      intervalMs: 20,
    });
    await cluster.kill('sender-1');
    const reachedAtKill = reached();
    const killedAfter = performance.now() - acceptedAt;
    const answeredAtKill = new Map([...apns.log.lastAnswersTagged(marker), ...fcm.log.lastAnswersTagged(marker)]);
    expect(reachedAtKill).toBeLessThan(deviceCount);

    const record = await settledRecord(marker, { api: liveApi, fakes: cluster.fakes, timeoutMs: 180_000 });
    cluster.assertRunning();
    const doneAfter = performance.now() - acceptedAt;
    process.stdout.write(`delivery-log-redo timeline: killed ${(killedAfter / 1000).toFixed(1)} s, done ${(doneAfter / 1000).toFixed(1)} s after acceptance\n`);

    const entries = await listDeliveries(liveApi(), marker);
    const perDevice = new Map<string, LoggedEntry[]>();
    for (const entry of entries) {
      const key = entry.tokenSuffix ?? '';
      perDevice.set(key, [...(perDevice.get(key) ?? []), entry]);
    }
    const repeated = [...perDevice].filter(([, list]) => list.length > 1).map(([suffix, list]) => `${suffix}: ${list.map((entry) => `${entry.sliceKey} ${entry.outcome}`).join(', ')}`);
    expect(repeated, 'devices with more than one entry').toEqual([]);
    expect(entries.length).toBe(deviceCount);

    const delivered = { apns: apns.log.deliveriesTagged(marker), fcm: fcm.log.deliveriesTagged(marker) };
    const lastAnswers = new Map([...apns.log.lastAnswersTagged(marker), ...fcm.log.lastAnswersTagged(marker)]);
    const mismatches: string[] = [];
    // A device the killed sender reached, in a slice redone after the expiry: the redo cannot know, and logs it Expired (docs/delivery-log.md).
    const expiredOnRedo: string[] = [];
    for (const device of fleet) {
      const entry = perDevice.get(device.address.slice(-8))?.[0];
      if (entry === undefined) {
        mismatches.push(`${device.n}: no entry`);
        continue;
      }
      const lastAnswer = lastAnswers.get(device.address);
      const accepted = (device.platform === 'ios' ? delivered.apns : delivered.fcm).has(device.address);
      const expected = expectedEntry(lastAnswer);
      const got = { outcome: entry.outcome, reason: entry.reason, ...(expected.status === undefined ? {} : { status: entry.status }) };
      if (JSON.stringify(got) !== JSON.stringify(expected)) {
        const beforeKill = lastAnswer !== undefined && answeredAtKill.get(device.address) === lastAnswer;
        if (beforeKill && entry.outcome === 'failed' && entry.reason === 'Expired' && entry.attempts === 0) expiredOnRedo.push(`${device.n} (${String(lastAnswer)})`);
        else mismatches.push(`${device.n} (${scriptOf(device)}, last answer ${String(lastAnswer)}): ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
        continue;
      }
      if (lastAnswer === undefined && entry.attempts !== 0) mismatches.push(`${device.n}: no request reached the fakes, the log says ${entry.attempts} attempts`);
      if (accepted !== (entry.outcome === 'delivered')) mismatches.push(`${device.n}: the fake ${accepted ? 'accepted' : 'did not accept'} it, the log says ${entry.outcome}`);
    }
    expect(mismatches.slice(0, 20), `${mismatches.length} entries differ from the fakes`).toEqual([]);

    const count = (outcome: string, reason?: string) => entries.filter((entry) => entry.outcome === outcome && (reason === undefined || entry.reason === reason)).length;
    const expired = count('failed', 'Expired');
    // The push was paced past its expiry: some devices were reached and some expired, of each kind.
    expect(expired, 'devices the push expired before reaching').toBeGreaterThan(100);
    expect(count('delivered'), 'devices delivered before the expiry').toBeGreaterThan(reachedAtKill);
    expect(count('invalidToken', 'Unregistered'), 'unregistered devices answered before the expiry').toBeGreaterThan(20);
    expect(count('invalidToken', 'BadDeviceToken'), 'bad tokens answered before the expiry').toBeGreaterThan(20);
    expect(count('failed')).toBe(expired);
    expect(record.body).toMatchObject({
      status: 'done',
      devices: deviceCount,
      successes: count('delivered'),
      invalidTokens: count('invalidToken'),
      errors: expired,
      errorReasons: expect.objectContaining({ Expired: expired }),
    });
    // Every installation answered 410 Unregistered is gone once its slice was recorded, and a bad token's (not unregistered) is kept,
    // as is an unregistered device's the push expired before reaching: each read by its objectId from its log entry, one partition a read.
    const idsOf = (outcome: string, reason: string) => entries.filter((entry) => entry.outcome === outcome && entry.reason === reason).map((entry) => entry.installation ?? 'missing');
    const stored = async (ids: string[]): Promise<number> => {
      let found = 0;
      for (let at = 0; at < ids.length; at += 100) {
        const answers = await Promise.all(ids.slice(at, at + 100).map((id) => liveApi().request('GET', `/1.1/installations/${id}`, { master: true })));
        found += answers.filter((answer) => answer.status === 200).length;
      }
      return found;
    };
    const unregisteredIds = idsOf('invalidToken', 'Unregistered');
    // Hundreds of reads a look: on a loaded CI machine one look took most of a minute, so the wait is three.
    await eventually('the unregistered installations removed', () => stored(unregisteredIds), (left) => left === 0, { timeoutMs: 180_000, intervalMs: 500 });
    const badTokenIds = idsOf('invalidToken', 'BadDeviceToken');
    expect(await stored(badTokenIds), 'installations of bad tokens, which stay').toBe(badTokenIds.length);
    const expiredUnregistered = fleet
      .filter((device) => scriptOf(device) === 'unregistered' && perDevice.get(device.address.slice(-8))?.[0]?.reason === 'Expired')
      .map((device) => perDevice.get(device.address.slice(-8))?.[0]?.installation ?? 'missing');
    expect(await stored(expiredUnregistered), 'installations of unregistered tokens the push expired before reaching, which stay').toBe(expiredUnregistered.length);
    const retried = entries.filter((entry) => entry.attempts > 1).length;
    const duplicates = apns.log.duplicates + fcm.log.duplicates;
    process.stdout.write(
      `delivery-log-redo: killed sender-1 ${(killedAfter / 1000).toFixed(1)} s after acceptance, after ${reachedAtKill} of ${deviceCount} devices; done after ${(doneAfter / 1000).toFixed(1)} s; ${duplicates} deliveries made twice by a redone slice; ` +
        `${entries.length} entries, ${retried} after a retried 429 or 503, ${expired} expired; ` +
        `${expiredOnRedo.length} reached by the killed sender and logged Expired by a redo after the expiry${expiredOnRedo.length === 0 ? '' : ` (${expiredOnRedo.slice(0, 10).join(', ')})`}\n`,
    );
  }, 400_000);
});

/** Every entry GET /1.1/notifications/<marker>/deliveries lists, page by page. */
async function listDeliveries(api: ApiClient, marker: string): Promise<LoggedEntry[]> {
  const entries: LoggedEntry[] = [];
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ limit: '1000', ...(cursor === null ? {} : { cursor }) });
    const page = await api.request('GET', `/1.1/notifications/${marker}/deliveries?${query.toString()}`, { master: true });
    expect(page.status, JSON.stringify(page.body).slice(0, 300)).toBe(200);
    entries.push(...(page.body.results as LoggedEntry[]));
    cursor = (page.body.nextCursor as string | null | undefined) ?? null;
  } while (cursor !== null);
  return entries;
}

async function inFlight(cluster: PushCluster, name: 'sender-1' | 'sender-2'): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${cluster.node(name).internalPort}/metrics`)).text();
  const line = text.split('\n').find((row) => row.startsWith('herald_push_tasks_in_flight '));
  return Number(line?.split(' ')[1] ?? 0);
}
