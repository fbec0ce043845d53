import { describe, expect, it } from 'vitest';
import { OutageLog } from '../../src/api/outage-log.ts';
import { ServiceUnavailableError } from '../../src/core/errors.ts';
import { memoryLogger } from '../support/memory-logger.ts';
import { startTestHerald } from '../support/test-herald.ts';

describe('OutageLog', () => {
  it('logs an outage once when the first request is refused and once when refusals stop, with the count', async () => {
    const logs = memoryLogger('debug');
    const outages = new OutageLog(logs.logger, { quietMs: 100 });
    for (let n = 0; n < 5; n += 1) outages.refused(new ServiceUnavailableError('Redis', new Error('connect ECONNREFUSED')));
    outages.refused(new ServiceUnavailableError('Kafka'));
    expect(logs.lines.map((line) => [line.level, line.dependency, line.cause])).toEqual([
      [40, 'Redis', 'connect ECONNREFUSED'],
      [40, 'Kafka', undefined],
    ]);
    await expect.poll(() => logs.lines.length, { timeout: 10_000, message: 'log lines of the outage' }).toBe(4);
    const ends = logs.lines.slice(2);
    expect(ends.map((line) => [line.level, line.dependency, line.refused]).sort()).toEqual([
      [30, 'Kafka', 1],
      [30, 'Redis', 5],
    ]);
    // A later refusal is a new outage.
    outages.refused(new ServiceUnavailableError('Redis'));
    expect(logs.lines.at(-1)).toMatchObject({ level: 40, dependency: 'Redis' });
  });
});

describe('an API node whose store is gone', () => {
  it('logs the outage once, not an error with a stack trace per refused request', async () => {
    const logs = memoryLogger('info');
    const h = await startTestHerald({ logger: logs.logger });
    try {
      await h.herald.runtime.store.close();
      for (let n = 0; n < 5; n += 1) {
        const res = await h.request('POST', '/1.1/login', { body: { username: 'x', password: 'y' } });
        expect(res.status).toBe(503);
      }
      // The API's request handling (its error handler and request log write as role "api") logs the outage once:
      // nothing about the requests at error level, no stack traces. Other roles and the Kafka client log their own.
      const requestLines = logs.lines.filter((line) => line.role === 'api');
      expect(requestLines.filter((line) => line.level >= 40)).toEqual([
        expect.objectContaining({ level: 40, dependency: expect.stringMatching(/SQLite|Cassandra/), msg: expect.stringMatching(/answer 503 until it is back/) }),
      ]);
      expect(JSON.stringify(requestLines)).not.toContain('"stack"');
    } finally {
      await h.close();
    }
  });
});
