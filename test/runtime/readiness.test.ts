import { describe, expect, it } from 'vitest';
import { Readiness, type Dependency } from '../../src/runtime/readiness.ts';
import { ManualClock } from '../support/manual-clock.ts';

/** A dependency whose answers the test sets, counting how often it is asked. */
function dependency(name: string, required: boolean) {
  let answer: () => Promise<void> = () => Promise.resolve();
  const dep = {
    name,
    required,
    calls: 0,
    check: () => {
      dep.calls += 1;
      return answer();
    },
    answers: (next: () => Promise<void>) => (answer = next),
  };
  return dep satisfies Dependency;
}

const never = (): Promise<void> => new Promise(() => {});
const refused = (): Promise<void> => Promise.reject(new Error('connection refused'));

describe('Readiness', () => {
  it('is ready when every backend answers, reporting each by name', async () => {
    const readiness = new Readiness([dependency('store', true), dependency('bus', true)], { clock: new ManualClock(0) });
    expect(await readiness.report()).toEqual({ ready: true, checks: { store: { status: 'ok' }, bus: { status: 'ok' } } });
  });

  it('answers within its timeout when a backend hangs, counting that backend unavailable', async () => {
    const store = dependency('store', true);
    store.answers(never);
    const readiness = new Readiness([store, dependency('coordination', true)], { clock: new ManualClock(0), timeoutMs: 50 });
    const started = performance.now();
    const report = await readiness.report();
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(report).toEqual({
      ready: false,
      checks: { store: { status: 'unavailable', error: 'no answer within 50 ms' }, coordination: { status: 'ok' } },
    });
  });

  it('stays ready when only a backend its roles can do without is away, and says so', async () => {
    const bus = dependency('bus', false);
    bus.answers(refused);
    const readiness = new Readiness([dependency('store', true), bus], { clock: new ManualClock(0) });
    expect(await readiness.report()).toEqual({
      ready: true,
      checks: { store: { status: 'ok' }, bus: { status: 'unavailable', error: 'connection refused', optional: true } },
    });
  });

  it('asks the backends once for concurrent probes and reuses the answer for cacheMs', async () => {
    const clock = new ManualClock(0);
    const store = dependency('store', true);
    const readiness = new Readiness([store], { clock, cacheMs: 1000 });
    await Promise.all([readiness.report(), readiness.report(), readiness.report()]);
    expect(store.calls).toBe(1);
    store.answers(refused);
    clock.advance(999);
    expect((await readiness.report()).ready).toBe(true);
    expect(store.calls).toBe(1);
    clock.advance(1);
    expect((await readiness.report()).ready).toBe(false);
    expect(store.calls).toBe(2);
  });
});
