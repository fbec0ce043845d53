import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { RedisCoordination } from '../../src/coord/redis/redis-coordination.ts';
import type { RedisCoordinationOptions } from '../../src/coord/redis/redis-coordination-options.ts';
import { ServiceUnavailableError } from '../../src/core/errors.ts';
import { memoryLogger } from '../support/memory-logger.ts';
import { startRedisProcess, type RedisProcess } from '../support/redis-process.ts';

// Each test has its own redis-server, so it may kill, freeze and restart it.
describe('RedisCoordination when Redis goes away', () => {
  let server: RedisProcess;
  const opened: RedisCoordination[] = [];

  beforeAll(async () => {
    server = await startRedisProcess();
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((coord) => coord.close()));
    // A test that failed halfway may leave the server frozen or stopped.
    try {
      server.resume();
    } catch {
      await server.start();
    }
  });

  afterAll(async () => {
    await server.stop();
  });

  async function open(options: Partial<RedisCoordinationOptions> = {}): Promise<RedisCoordination> {
    const coord = await RedisCoordination.open({ url: server.url, commandTimeoutMs: 300, maxReconnectDelayMs: 100, ...options });
    opened.push(coord);
    return coord;
  }

  /** Every kind of call the port offers, each against its own key. */
  function everyCall(coord: RedisCoordination): Record<string, () => Promise<unknown>> {
    const now = Date.now();
    return {
      ping: () => coord.ping(),
      get: () => coord.get('k'),
      set: () => coord.set('k', 'v', 60_000),
      setIfAbsent: () => coord.setIfAbsent('req-id', 'push', 60_000),
      take: () => coord.take('k'),
      delete: () => coord.delete('k'),
      recordEvent: () => coord.recordEvent('failures', now, 60_000),
      takeTokens: () => coord.takeTokens('flow', { ratePerSecond: 1000, burst: 1000, requested: 1, now }),
      acquireLease: () => coord.acquireLease('scheduler', 60_000),
    };
  }

  async function expectUnavailable(call: () => Promise<unknown>, withinMs: number): Promise<void> {
    const started = performance.now();
    const error = await call().then(
      () => new Error('expected the call to fail'),
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ status: 503, code: 503, retryable: true });
    expect(performance.now() - started).toBeLessThan(withinMs);
  }

  it('fails every call at once with 503 while Redis is down, and serves again once it is back', async () => {
    const log = memoryLogger();
    const coord = await open({ logger: log.logger });
    const lease = await coord.acquireLease('leader', 60_000);
    await coord.set('k', 'before', 60_000);

    await server.stop();
    for (const call of Object.values(everyCall(coord))) await expectUnavailable(call, 100);
    await expectUnavailable(() => lease?.extend(60_000) ?? Promise.resolve(), 100);

    await server.start();
    // The same adapter reconnects by itself.
    await vi.waitFor(() => coord.ping(), { timeout: 5000, interval: 25 });
    await coord.set('k', 'after', 60_000);
    expect(await coord.get('k')).toBe('after');
    // The restarted server kept nothing, the old lease included.
    expect(await lease?.extend(60_000)).toBe(false);
    expect(await coord.acquireLease('leader', 60_000)).not.toBeNull();
    expect(await coord.recordEvent('failures', Date.now(), 60_000)).toBe(1);
    // One line for the loss and one for the recovery, however many redials came between.
    expect(log.lines.map(({ level, msg }) => [level, msg])).toEqual([
      [40, 'Redis connection lost; coordination calls fail until it is back'],
      [30, 'Redis connection restored'],
    ]);
  });

  it('fails a call in flight when its connection drops, without waiting for the timeout', async () => {
    const coord = await open({ commandTimeoutMs: 10_000 });
    server.pause();
    const started = performance.now();
    const inFlight = coord.setIfAbsent('req-id', 'push', 60_000).catch((reason: unknown) => reason);
    await server.stop();
    expect(await inFlight).toBeInstanceOf(ServiceUnavailableError);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('fails a call within the command timeout when Redis stops answering, and serves again once it resumes', async () => {
    const coord = await open({ commandTimeoutMs: 300 });
    server.pause();
    await expectUnavailable(() => coord.get('k'), 1500);
    await expectUnavailable(() => coord.takeTokens('flow', { ratePerSecond: 10, burst: 10, requested: 1, now: Date.now() }), 1500);

    server.resume();
    await vi.waitFor(() => coord.ping(), { timeout: 5000, interval: 25 });
    expect(await coord.setIfAbsent('req-id', 'push', 60_000)).toBe(true);
  });

  it('waits at start-up for a Redis that comes up within the ready timeout', async () => {
    await server.stop();
    const opening = open({ readyTimeoutMs: 10_000 });
    await server.start();
    const coord = await opening;
    await expect(coord.ping()).resolves.toBeUndefined();
  });

  it('closes promptly while Redis is down', async () => {
    const coord = await open();
    await server.stop();
    await expectUnavailable(() => coord.ping(), 100);
    const started = performance.now();
    await coord.close();
    await coord.close();
    expect(performance.now() - started).toBeLessThan(100);
    await server.start();
  });
});
