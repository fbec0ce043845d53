import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisProcess, type RedisProcess } from '../support/redis-process.ts';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';

/**
 * Locks live in Redis, so Redis must keep them across a restart: Herald's
 * Redis runs with an append-only file (README, "Running on Cassandra, Redis
 * and Kafka"). Before, stopping and starting Redis let the right password
 * straight into a locked account.
 */
describe('an account lock on Redis with append-only persistence', () => {
  let redis: RedisProcess;
  let h: TestHerald;
  let redisDir: string;
  beforeAll(async () => {
    redisDir = mkdtempSync(join(tmpdir(), 'herald-redis-aof-'));
    redis = await startRedisProcess({ appendOnlyDir: redisDir });
    h = await startTestHerald({ coordination: { redisUrl: redis.url, keyPrefix: 'herald:' } });
  });
  afterAll(async () => {
    await h?.close();
    await redis?.stop();
    rmSync(redisDir, { recursive: true, force: true });
  });

  it('still refuses the right password after Redis is killed and started again', async () => {
    const username = `persist${Date.now().toString(36)}`;
    expect((await h.request('POST', '/1.1/users', { body: { username, password: 'right-pass' } })).status).toBe(201);
    for (let i = 0; i < 6; i++) expect((await h.request('POST', '/1.1/login', { body: { username, password: 'wrong' } })).body.code).toBe(210);
    expect((await h.request('POST', '/1.1/login', { body: { username, password: 'wrong' } })).body.code).toBe(219);

    await redis.stop();
    await redis.start();
    // The client reconnects by itself; until it has, requests answer 503.
    await expect
      .poll(async () => (await h.request('POST', '/1.1/login', { body: { username, password: 'right-pass' } })).body.code, {
        timeout: 15_000,
        interval: 200,
        message: 'the login answer once the lock has ended',
      })
      .toBe(219);
  });
});
