import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LoginLock } from '../../src/accounts/login-lock.ts';
import { RedisCoordination } from '../../src/coord/redis/redis-coordination.ts';
import type { RedisCoordinationOptions } from '../../src/coord/redis/redis-coordination-options.ts';
import { RedisNotReadyError } from '../../src/coord/redis/redis-errors.ts';
import { systemClock } from '../../src/core/clock.ts';
import { ErrorCode, HeraldError, ServiceUnavailableError } from '../../src/core/errors.ts';
import { appKey } from '../../src/core/ports/coordination.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { serviceEndpoints } from '../support/service-endpoints.ts';
import { withDeadline } from '../support/with-deadline.ts';
import { describeCoordinationConformance, manualTime, realTime, type CoordinationUnderTest } from './coordination-conformance.ts';
import { describeLeaseConformance } from './lease-conformance.ts';
import { describeTokenBucketConformance } from './token-bucket-conformance.ts';

const url = serviceEndpoints.redis.url;

/** A fresh prefix per adapter, so tests on the shared server never meet; every key expires. */
function testPrefix(): string {
  return `herald-test:${randomUUID()}:`;
}

/** Values, windows, locks and buckets follow the adapter's clock, so these suites run on manual time. */
async function makeRedis(): Promise<CoordinationUnderTest> {
  const time = manualTime();
  const coord = await RedisCoordination.open({ url, keyPrefix: testPrefix(), clock: time.clock });
  return { coord, ...time, cleanup: () => coord.close() };
}

/** Leases are redlock locks whose TTLs run on the server's clock: real time, awaited with deadlines. */
async function makeRedisOnRealTime(): Promise<CoordinationUnderTest> {
  const coord = await RedisCoordination.open({ url, keyPrefix: testPrefix() });
  return { coord, ...realTime(), cleanup: () => coord.close() };
}

describeCoordinationConformance('RedisCoordination', makeRedis);
describeTokenBucketConformance('RedisCoordination', makeRedis);
describeLeaseConformance('RedisCoordination', makeRedisOnRealTime);

describe('RedisCoordination on a shared server', () => {
  const opened: RedisCoordination[] = [];
  let raw: Redis;

  beforeAll(() => {
    raw = new Redis(url);
  });

  afterAll(async () => {
    await raw.quit();
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((coord) => coord.close()));
  });

  async function node(options: Partial<RedisCoordinationOptions> = {}): Promise<RedisCoordination> {
    const coord = await RedisCoordination.open({ url, ...options });
    opened.push(coord);
    return coord;
  }

  it('writes every key under its prefix and the app namespace, and each one expires', async () => {
    const prefix = testPrefix();
    const coord = await node({ keyPrefix: prefix });
    const now = Date.now();
    await coord.set(appKey('app-1', 'sms-code', '+4477'), '123456', 60_000);
    await coord.setIfAbsent(appKey('app-1', 'push-req-id', 'r1'), 'push-1', 300_000);
    await coord.recordEvent(appKey('app-1', 'login-failures', 'alice'), now, 900_000);
    await coord.takeTokens(appKey('app-2', 'flow', 'push-9'), { ratePerSecond: 1000, burst: 1000, requested: 10, now });
    await coord.acquireLease('scheduler', 30_000);

    const keys = await raw.keys(`${prefix}*`);
    expect(keys.sort()).toEqual(
      [
        'app:app-1:login-failures:alice',
        'app:app-1:push-req-id:r1',
        'app:app-1:sms-code:+4477',
        'app:app-2:flow:push-9',
        'lease:scheduler',
      ].map((key) => `${prefix}${key}`),
    );
    const ttls = await Promise.all(keys.map((key) => raw.pttl(key)));
    for (const ttl of ttls) expect(ttl).toBeGreaterThan(0);
  });

  it('uses herald: as the prefix when none is given', async () => {
    const coord = await node();
    const key = `test:${randomUUID()}`;
    await coord.set(key, 'value', 5000);
    expect(await raw.get(`herald:${key}`)).toMatch(/^\d+\|value$/);
    await coord.delete(key);
  });

  it('reads a value as gone once its time has passed on the adapter clock, while Redis still drops it by its TTL', async () => {
    const prefix = testPrefix();
    const clock = new ManualClock();
    const coord = await node({ keyPrefix: prefix, clock });
    await coord.set('code', '123456', 60_000);
    expect(await raw.pttl(`${prefix}code`)).toBeGreaterThan(55_000);
    clock.advance(60_000);
    expect(await coord.get('code')).toBeNull();
    expect(await coord.take('code')).toBeNull();
    expect(await coord.setIfAbsent('code', '654321', 60_000)).toBe(true);
    expect(await coord.get('code')).toBe('654321');
  });

  it('reserves attempts for two API nodes in one window, so a burst spread over both gets max through', async () => {
    const prefix = testPrefix();
    const [a, b] = [await node({ keyPrefix: prefix }), await node({ keyPrefix: prefix })];
    const now = Date.now();
    const limit = { now, windowMs: 60_000, max: 6, lockMs: 60_000 };
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? a : b).reserveAttempt('window', 'lock', limit)));
    expect(answers.filter((answer) => answer.allowed)).toHaveLength(6);
    expect(await raw.pttl(`${prefix}lock`)).toBeGreaterThan(55_000);
  });

  it('answers a burst over two API nodes busy while its attempts are under way, and locks once the other node settles them', async () => {
    const prefix = testPrefix();
    const [a, b] = [await node({ keyPrefix: prefix }), await node({ keyPrefix: prefix })];
    const now = Date.now();
    const limit = { now, windowMs: 60_000, max: 6, lockMs: 60_000, pendingMs: 30_000 };
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? a : b).reserveAttempt('pw', 'pl', limit)));
    const allowed = answers.filter((answer) => answer.allowed);
    expect(allowed).toHaveLength(6);
    expect(answers.filter((answer) => answer.busy)).toHaveLength(54);
    expect(await raw.exists(`${prefix}pl`)).toBe(0);
    expect(await raw.pttl(`${prefix}pw:pending`)).toBeGreaterThan(25_000);
    for (const answer of allowed) await b.settleAttempt('pw', answer.attempt);
    expect(await a.reserveAttempt('pw', 'pl', { ...limit, now: now + 1 })).toMatchObject({ allowed: false, busy: false, lockedUntil: now + 60_001 });
    expect(await raw.pttl(`${prefix}pl`)).toBeGreaterThan(55_000);
  });

  it('keeps the event window only as long as the window', async () => {
    const prefix = testPrefix();
    const coord = await node({ keyPrefix: prefix });
    await coord.recordEvent('events', Date.now(), 60_000);
    // The TTL counts down between the write and this read; a loaded machine gets ten seconds.
    const ttl = await raw.pttl(`${prefix}events`);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('forgets a bucket once it would be full again, keeping it at least a minute for callers whose clocks lag', async () => {
    const prefix = testPrefix();
    const coord = await node({ keyPrefix: prefix });
    // Drained at 100 tokens a second: full again in 300 ms, kept for the minute's margin.
    await coord.takeTokens('bucket', { ratePerSecond: 100, burst: 30, requested: 30, now: Date.now() });
    // The TTLs count down between each write and its read; a loaded machine gets ten seconds.
    const short = await raw.pttl(`${prefix}bucket`);
    expect(short).toBeGreaterThan(50_000);
    expect(short).toBeLessThanOrEqual(60_000);
    // Drained at 1 token a second: full again in 600 s, longer than the margin.
    await coord.takeTokens('slow', { ratePerSecond: 1, burst: 600, requested: 600, now: Date.now() });
    const long = await raw.pttl(`${prefix}slow`);
    expect(long).toBeGreaterThan(590_000);
    expect(long).toBeLessThanOrEqual(600_000);
  });

  it('adds up login failures recorded through two API nodes and locks on both', async () => {
    const prefix = testPrefix();
    const [a, b] = [await node({ keyPrefix: prefix }), await node({ keyPrefix: prefix })];
    const now = Date.now();
    const key = appKey('app-1', 'login-failures', 'alice');
    expect(await a.recordEvent(key, now, 60_000)).toBe(1);
    expect(await b.recordEvent(key, now + 1, 60_000)).toBe(2);
    expect(await a.recordEvent(key, now + 2, 60_000)).toBe(3);

    const locks = [new LoginLock({ coord: a, clock: systemClock }), new LoginLock({ coord: b, clock: systemClock })];
    const wrong = (): Promise<boolean> => Promise.resolve(false);
    const right = (): Promise<boolean> => Promise.resolve(true);
    const mismatch = (): HeraldError => new HeraldError(ErrorCode.passwordMismatch, 'wrong password');
    for (let attempt = 0; attempt < 6; attempt += 1) {
      await expect(locks[attempt % 2]?.attempt('app-1', 'bob', 'password', wrong, mismatch)).rejects.toMatchObject({ code: ErrorCode.passwordMismatch });
    }
    await expect(locks[0]?.attempt('app-1', 'bob', 'password', wrong, mismatch)).rejects.toMatchObject({ code: ErrorCode.loginLocked });
    await expect(locks[1]?.attempt('app-1', 'bob', 'password', right, mismatch)).rejects.toMatchObject({ code: ErrorCode.loginLocked });
  });

  it('shares one token bucket between nodes', async () => {
    const prefix = testPrefix();
    const nodes = [await node({ keyPrefix: prefix }), await node({ keyPrefix: prefix }), await node({ keyPrefix: prefix })];
    const bucket = { ratePerSecond: 200, burst: 20 };
    const first = Date.now();
    let granted = 0;
    await Promise.all(
      nodes.flatMap((coord) =>
        Array.from({ length: 10 }, async () => {
          for (let round = 0; round < 10; round += 1) {
            const grant = await coord.takeTokens('flow', { ...bucket, requested: 2, now: Date.now() });
            granted += grant.granted;
          }
        }),
      ),
    );
    expect(granted).toBeLessThanOrEqual(bucket.burst + (bucket.ratePerSecond * (Date.now() - first)) / 1000);
    expect(granted).toBeGreaterThanOrEqual(bucket.burst);
  });

  it('gives a lease to one of two nodes, and to the other once released', async () => {
    const prefix = testPrefix();
    const [a, b] = [await node({ keyPrefix: prefix }), await node({ keyPrefix: prefix })];
    const leader = await a.acquireLease('scheduler', 10_000);
    expect(leader).not.toBeNull();
    expect(await b.acquireLease('scheduler', 10_000)).toBeNull();
    await leader?.release();
    expect(await b.acquireLease('scheduler', 10_000)).not.toBeNull();
    expect(await a.acquireLease('scheduler', 10_000)).toBeNull();
  });

  it('passes an error reply through as a bug, not as an outage', async () => {
    const coord = await node({ keyPrefix: testPrefix() });
    await coord.set('a-string', 'value', 5000);
    const failure = coord.recordEvent('a-string', Date.now(), 1000);
    await expect(failure).rejects.toThrow(/WRONGTYPE/);
    await expect(failure).rejects.not.toBeInstanceOf(ServiceUnavailableError);
  });

  it('refuses calls once closed', async () => {
    const coord = await node();
    await coord.close();
    await expect(coord.get('anything')).rejects.toThrow('closed');
    await expect(coord.acquireLease('anything', 1000)).rejects.toThrow('closed');
  });

  it('gives up starting within the ready timeout, naming the address and the cause', async () => {
    // Port 1 is privileged and unused: connections are refused at once.
    const opening = RedisCoordination.open({ url: 'redis://127.0.0.1:1', readyTimeoutMs: 300 });
    // Giving up after 300 ms rather than the 10 s default; the deadline leaves a loaded machine seconds to spare.
    const error = await withDeadline(
      opening.then(
        () => new Error('expected opening to fail'),
        (reason: unknown) => reason,
      ),
      'opening to give up',
      { timeoutMs: 5000 },
    );
    expect(error).toBeInstanceOf(RedisNotReadyError);
    expect((error as RedisNotReadyError).message).toMatch(/^Redis at 127\.0\.0\.1:1 was not ready within 300 ms \(last error: .*ECONNREFUSED/);
    expect((error as RedisNotReadyError).cause).toMatchObject({ code: 'ECONNREFUSED' });
  });
});
