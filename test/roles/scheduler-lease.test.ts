import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lease } from '../../src/core/ports/leases.ts';
import { SchedulerRole } from '../../src/roles/scheduler-role.ts';
import { startPushHerald, type PushHerald } from '../push/support/push-herald.ts';
import { watchSchedulerRounds } from '../push/support/scheduler-rounds.ts';
import { eventually } from '../support/eventually.ts';

/** Leases whose answers the test sets: granted or not, extended, lost, or unreachable. */
function scriptedLeases() {
  const script = { grant: true, extend: 'ok' as 'ok' | 'lost' | 'unreachable', acquired: 0, calls: 0 };
  const lease: Lease = {
    name: 'scheduler',
    extend: () => {
      script.calls += 1;
      if (script.extend === 'unreachable') return Promise.reject(new Error('Redis is unavailable; retry later'));
      return Promise.resolve(script.extend === 'ok');
    },
    release: () => Promise.resolve(),
  };
  const acquireLease = () => {
    script.calls += 1;
    if (!script.grant) return Promise.resolve(null);
    script.acquired += 1;
    return Promise.resolve(lease);
  };
  return { script, acquireLease };
}

describe('the scheduler’s lease', () => {
  let p: PushHerald;
  let scheduler: SchedulerRole;
  let rounds: ReturnType<typeof watchSchedulerRounds>;
  const leases = scriptedLeases();

  beforeAll(async () => {
    // No scheduler of its own: the one under test runs on this herald's runtime with scripted leases.
    p = await startPushHerald({ role: 'api,fanout,sender' });
    const { runtime } = p.h.herald;
    rounds = watchSchedulerRounds(runtime.store.scheduled);
    scheduler = new SchedulerRole({ ...runtime, coord: Object.assign(Object.create(runtime.coord) as typeof runtime.coord, { acquireLease: leases.acquireLease }) });
    await scheduler.start();
  }, 60_000);

  /** What `herald_scheduler_leading` reports, as /metrics shows it. */
  async function leadingMetric(): Promise<string | undefined> {
    const text = await p.h.herald.runtime.metrics.text();
    return /^herald_scheduler_leading (\S+)$/m.exec(text)?.[1];
  }

  afterAll(async () => {
    await scheduler?.close();
    rounds?.restore();
    await p?.close();
  });

  it('leads once it holds the lease, and keeps leading while extensions succeed', async () => {
    await rounds.completed();
    expect(scheduler.leading).toBe(true);
    expect(scheduler.status()).toEqual({ state: 'running', detail: { leading: true } });
    expect(await leadingMetric()).toBe('1');
    p.clock.advance(60_000);
    await rounds.completed();
    expect(scheduler.leading).toBe(true);
  });

  it('keeps leading through an outage of coordination shorter than the lease, and stops once the lease may have lapsed', async () => {
    leases.script.extend = 'unreachable';
    leases.script.grant = false;
    p.clock.advance(5_000);
    await waitForRounds();
    expect(scheduler.leading).toBe(true);
    p.clock.advance(15_000);
    await waitForRounds();
    expect(scheduler.leading).toBe(false);
    expect(scheduler.status()).toEqual({ state: 'running', detail: { leading: false } });
    expect(await leadingMetric()).toBe('0');
  });

  it('leads again when it wins the lease back, and stops when an extension finds it lost', async () => {
    leases.script.extend = 'ok';
    leases.script.grant = true;
    await rounds.completed();
    expect(scheduler.leading).toBe(true);
    leases.script.extend = 'lost';
    leases.script.grant = false;
    await waitForRounds();
    expect(scheduler.leading).toBe(false);
  });

  /**
   * Rounds that do not lead never look for due pushes: wait for two more calls
   * to take or extend the lease instead, each of which starts a round.
   */
  async function waitForRounds(): Promise<void> {
    const before = leases.script.calls;
    await eventually('two more scheduler rounds', () => leases.script.calls, (count) => count >= before + 2);
  }
});
