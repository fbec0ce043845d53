import { describe, expect, it } from 'vitest';
import type { RoleStatus } from '../../src/roles/role.ts';
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
    expect(await readiness.report()).toEqual({ ready: true, checks: { store: { status: 'ok' }, bus: { status: 'ok' } }, roles: {} });
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
      roles: {},
    });
  });

  it('stays ready when only a backend its roles can do without is away, and says so', async () => {
    const bus = dependency('bus', false);
    bus.answers(refused);
    const readiness = new Readiness([dependency('store', true), bus], { clock: new ManualClock(0) });
    expect(await readiness.report()).toEqual({
      ready: true,
      checks: { store: { status: 'ok' }, bus: { status: 'unavailable', error: 'connection refused', optional: true } },
      roles: {},
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

  it('is unready while a role starts or drains, and reports each role by name', async () => {
    const roles: Record<string, RoleStatus> = { sender: { state: 'starting' }, scheduler: { state: 'running', detail: { leading: false } } };
    const readiness = new Readiness([dependency('store', true)], { clock: new ManualClock(0), roles: () => roles });
    expect(await readiness.report()).toEqual({ ready: false, checks: { store: { status: 'ok' } }, roles });
    roles.sender = { state: 'running', detail: { partitions: { 'push.tasks': [0, 1] } } };
    // Role states are read afresh on every report, backends only once per cacheMs.
    expect(await readiness.report()).toMatchObject({ ready: true, roles: { sender: { state: 'running' } } });
    roles.sender = { state: 'draining' };
    expect((await readiness.report()).ready).toBe(false);
  });

  it('reports the process dead only when a role has failed for good', () => {
    const roles: Record<string, RoleStatus> = { api: { state: 'draining' }, sender: { state: 'running' } };
    const readiness = new Readiness([], { clock: new ManualClock(0), roles: () => roles });
    expect(readiness.liveness()).toEqual({ alive: true, roles });
    roles.sender = { state: 'failed', error: 'The group coordinator is not available' };
    expect(readiness.liveness()).toEqual({ alive: false, roles });
  });
});
