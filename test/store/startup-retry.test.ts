import { setTimeout as delay } from 'node:timers/promises';
import { errors, types } from 'cassandra-driver';
import { describe, expect, it } from 'vitest';
import { startupRetry } from '../../src/store/cassandra/startup-retry.ts';
import { memoryLogger } from '../support/memory-logger.ts';

const codes = types.responseErrorCodes;
const replicaError = (code: number) => new errors.ResponseError(code, `server answered 0x${code.toString(16)}`);

/** A step failing with each of `failures` in turn, then answering 'done'. */
function failingStep(failures: Error[]): { work: () => Promise<string>; calls: () => number } {
  let calls = 0;
  return {
    work: () => {
      const failure = failures[calls++];
      return failure === undefined ? Promise.resolve('done') : Promise.reject(failure);
    },
    calls: () => calls,
  };
}

describe('startupRetry', () => {
  it('tries a step again after replica timeouts, overload and an unknown lightweight-transaction outcome, saying so each time', async () => {
    const log = memoryLogger('info');
    const step = failingStep([replicaError(codes.writeTimeout), replicaError(codes.readTimeout), replicaError(codes.overloaded), replicaError(0x1700)]);
    await expect(startupRetry(log.logger, { firstPauseMs: 1 })('settle', step.work)).resolves.toBe('done');
    expect(step.calls()).toBe(5);
    const warnings = log.lines.filter((line) => line.level === 40);
    expect(warnings.map((line) => [line.step, line.attempt])).toEqual([
      ['settle', 1],
      ['settle', 2],
      ['settle', 3],
      ['settle', 4],
    ]);
    expect(warnings[0]?.reason).toBe('server answered 0x1100');
  });

  it.each([
    ['too few replicas', replicaError(codes.unavailableException)],
    ['a syntax error', replicaError(codes.syntaxError)],
    ['refused credentials', new errors.AuthenticationError('bad credentials')],
    ['a fault in Herald', new TypeError('x is undefined')],
  ])('ends at once on %s', async (_name, failure) => {
    const step = failingStep([failure]);
    await expect(startupRetry(undefined, { firstPauseMs: 1 })('migrate', step.work)).rejects.toBe(failure);
    expect(step.calls()).toBe(1);
  });

  it('gives up with the last timeout once its budget, shared by every step, is spent', async () => {
    const retry = startupRetry(undefined, { budgetMs: 300, firstPauseMs: 20, maxPauseMs: 40 });
    const timeout = replicaError(codes.writeTimeout);
    const endless = failingStep(Array.from({ length: 1000 }, () => timeout));
    const started = Date.now();
    await expect(retry('migrate', endless.work)).rejects.toBe(timeout);
    expect(endless.calls()).toBeGreaterThan(3);
    expect(Date.now() - started).toBeLessThan(1000);
    // A step begun after the budget's end gets one try, no more.
    await delay(300);
    const next = failingStep([timeout]);
    await expect(retry('settle', next.work)).rejects.toBe(timeout);
    expect(next.calls()).toBe(1);
  });
});
