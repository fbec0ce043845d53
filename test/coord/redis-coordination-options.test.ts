import { describe, expect, it } from 'vitest';
import { compileRedisCoordinationOptions } from '../../src/coord/redis/redis-coordination-options.ts';

// The timeouts are what the outage tests rely on; checking how they reach the
// client here lets those tests allow a loaded machine generous deadlines.
describe('compileRedisCoordinationOptions', () => {
  it('bounds every command by the command timeout, and drops a silent connection after twice that', () => {
    const { redis } = compileRedisCoordinationOptions({ commandTimeoutMs: 300 });
    expect(redis.commandTimeout).toBe(300);
    expect(redis.socketTimeout).toBe(600);
  });

  it('waits for readiness as long as asked, and connects within the connect timeout', () => {
    const compiled = compileRedisCoordinationOptions({ readyTimeoutMs: 300, connectTimeoutMs: 150 });
    expect(compiled.readyTimeoutMs).toBe(300);
    expect(compiled.redis.connectTimeout).toBe(150);
  });

  it('defaults to 2 s per command and connection attempt, 10 s for readiness, and the herald: prefix', () => {
    const compiled = compileRedisCoordinationOptions({});
    expect(compiled.readyTimeoutMs).toBe(10_000);
    expect(compiled.redis).toMatchObject({ commandTimeout: 2000, socketTimeout: 4000, connectTimeout: 2000, keyPrefix: 'herald:' });
  });

  it('fails fast while disconnected: nothing queued, nothing resent', () => {
    const { redis } = compileRedisCoordinationOptions({});
    expect(redis).toMatchObject({ enableOfflineQueue: false, maxRetriesPerRequest: 0, autoResendUnfulfilledCommands: false });
  });

  it('redials with a doubling delay, capped by maxReconnectDelayMs', () => {
    const { redis } = compileRedisCoordinationOptions({ maxReconnectDelayMs: 300 });
    expect([1, 2, 3, 4, 5, 50].map((attempt) => redis.retryStrategy?.(attempt))).toEqual([50, 100, 200, 300, 300, 300]);
  });

  it.each([
    ['commandTimeoutMs', { commandTimeoutMs: 0 }, 'commandTimeoutMs must be positive milliseconds, got 0'],
    ['readyTimeoutMs', { readyTimeoutMs: -1 }, 'readyTimeoutMs must be positive milliseconds, got -1'],
    ['connectTimeoutMs', { connectTimeoutMs: Number.NaN }, 'connectTimeoutMs must be positive milliseconds, got NaN'],
    ['maxReconnectDelayMs', { maxReconnectDelayMs: Number.POSITIVE_INFINITY }, 'maxReconnectDelayMs must be positive milliseconds, got Infinity'],
  ])('refuses a %s that is not positive milliseconds', (_name, options, message) => {
    expect(() => compileRedisCoordinationOptions(options)).toThrow(new RangeError(message));
  });
});
