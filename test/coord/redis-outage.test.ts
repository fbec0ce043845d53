import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisCoordination } from '../../src/coord/redis/redis-coordination.ts';
import type { RedisCoordinationOptions } from '../../src/coord/redis/redis-coordination-options.ts';
import { ServiceUnavailableError } from '../../src/core/errors.ts';
import { eventually } from '../support/eventually.ts';
import { memoryLogger } from '../support/memory-logger.ts';
import { startRedisProcess, type RedisProcess } from '../support/redis-process.ts';
import { withDeadline } from '../support/with-deadline.ts';

// Failing "at once" is told apart from failing "after the command timeout" by a
// timeout far longer than the deadline the test allows: the deadlines leave a
// loaded machine seconds to spare, and a call that waited for the timeout
// would still miss them by seconds.
const patientMs = 20_000;
const promptMs = 5_000;

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

  /** Waits, at most `withinMs`, for `call` to fail as a Redis outage: 503, retryable, naming Redis. */
  async function expectUnavailable(what: string, call: () => Promise<unknown>, withinMs: number): Promise<void> {
    const error = await withDeadline(
      call().then(
        (value: unknown) => new Error(`expected ${what} to fail, but it answered ${String(value)}`),
        (reason: unknown) => reason,
      ),
      `${what} to fail`,
      { timeoutMs: withinMs },
    );
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ status: 503, code: 503, retryable: true, service: 'Redis', message: 'Redis is unavailable; retry later' });
  }

  /** Polls until the adapter answers PING again after an outage. */
  function reconnected(coord: RedisCoordination): Promise<void> {
    return eventually('the adapter to reconnect and answer PING', () => coord.ping());
  }

  it('fails every call at once with 503 while Redis is down, and serves again once it is back', async () => {
    const log = memoryLogger();
    const coord = await open({ logger: log.logger, commandTimeoutMs: patientMs });
    const lease = await coord.acquireLease('leader', 60_000);
    if (lease === null) throw new Error('expected the lease of a fresh server');
    await coord.set('k', 'before', 60_000);

    await server.stop();
    for (const [name, call] of Object.entries(everyCall(coord))) await expectUnavailable(name, call, promptMs);
    await expectUnavailable('extend', () => lease.extend(60_000), promptMs);

    await server.start();
    // The same adapter reconnects by itself.
    await reconnected(coord);
    await coord.set('k', 'after', 60_000);
    expect(await coord.get('k')).toBe('after');
    // The restarted server kept nothing, the old lease included.
    expect(await lease.extend(60_000)).toBe(false);
    expect(await coord.acquireLease('leader', 60_000)).not.toBeNull();
    expect(await coord.recordEvent('failures', Date.now(), 60_000)).toBe(1);
    // One line for the loss and one for the recovery, however many redials came between.
    expect(log.lines.map(({ level, msg }) => [level, msg])).toEqual([
      [40, 'Redis connection lost; coordination calls fail until it is back'],
      [30, 'Redis connection restored'],
    ]);
  });

  it('fails a call in flight when its connection drops, without waiting for the timeout, and serves again once Redis is back', async () => {
    const coord = await open({ commandTimeoutMs: patientMs });
    server.pause();
    const inFlight = coord.setIfAbsent('req-id', 'push', 60_000);
    // Handled at once, so that failing while the server stops is not reported as unhandled; judged below.
    void inFlight.catch(() => undefined);
    await server.stop();
    await expectUnavailable('the setIfAbsent in flight', () => inFlight, promptMs);
    await server.start();
    await reconnected(coord);
    expect(await coord.setIfAbsent('after-restart', 'push', 60_000)).toBe(true);
  });

  it('fails a call after the command timeout when Redis stops answering, and serves again once it resumes', async () => {
    // How the option reaches the client is checked exactly in redis-coordination-options.test.ts;
    // here, that a frozen server makes calls fail instead of hang.
    const coord = await open({ commandTimeoutMs: 300 });
    server.pause();
    await expectUnavailable('get', () => coord.get('k'), promptMs);
    await expectUnavailable('takeTokens', () => coord.takeTokens('flow', { ratePerSecond: 10, burst: 10, requested: 1, now: Date.now() }), promptMs);

    server.resume();
    await reconnected(coord);
    expect(await coord.setIfAbsent('req-id', 'push', 60_000)).toBe(true);
  });

  it('waits at start-up for a Redis that comes up within the ready timeout', async () => {
    await server.stop();
    const opening = open({ readyTimeoutMs: 10_000 });
    await server.start();
    const coord = await opening;
    await expect(coord.ping()).resolves.toBeUndefined();
  });

  it('closes promptly while Redis is down, and stays closed once it is back', async () => {
    const coord = await open({ commandTimeoutMs: patientMs });
    await server.stop();
    await expectUnavailable('ping', () => coord.ping(), promptMs);
    // A close that waited for the server would wait until after this deadline: the server comes back only below.
    await withDeadline(coord.close(), 'close while Redis is down', { timeoutMs: promptMs });
    await withDeadline(coord.close(), 'a second close', { timeoutMs: promptMs });
    await server.start();
    await expect(coord.ping()).rejects.toThrow(new Error('coordination is closed'));
  });
});
