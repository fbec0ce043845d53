import { describe, expect, it } from 'vitest';
import type { Subscription } from '../../src/core/ports/bus.ts';
import { consumerStatus } from '../../src/roles/consumer-status.ts';
import { RoleLifecycle } from '../../src/roles/role-lifecycle.ts';

/** A subscription whose assignment and stop the test sets. */
function subscription(partitions: number[]): Subscription & { stop(error: Error): void } {
  let stoppedBy: Error | null = null;
  return {
    groupId: 'herald-sender',
    assignment: () => [{ topic: 'push.tasks', partitions }],
    stoppedBy: () => stoppedBy,
    close: () => Promise.resolve(),
    stop: (error) => (stoppedBy = error),
  };
}

describe('RoleLifecycle', () => {
  it('is starting until start resolves, then running, then draining until the drain settles, then closed', async () => {
    const lifecycle = new RoleLifecycle();
    let started!: () => void;
    const starting = lifecycle.start(() => new Promise<void>((resolve) => (started = resolve)));
    expect(lifecycle.state).toBe('starting');
    started();
    await starting;
    expect(lifecycle.state).toBe('running');

    let drained!: () => void;
    const closing = lifecycle.close(() => new Promise<void>((resolve) => (drained = resolve)));
    expect(lifecycle.state).toBe('draining');
    drained();
    await closing;
    expect(lifecycle.state).toBe('closed');
  });

  it('drains once however often close is called', async () => {
    const lifecycle = new RoleLifecycle();
    await lifecycle.start(() => Promise.resolve());
    let drains = 0;
    const drain = () => {
      drains += 1;
      return Promise.resolve();
    };
    await Promise.all([lifecycle.close(drain), lifecycle.close(drain)]);
    await lifecycle.close(drain);
    expect(drains).toBe(1);
  });

  it('is failed, with the reason, when its start throws', async () => {
    const lifecycle = new RoleLifecycle();
    await expect(lifecycle.start(() => Promise.reject(new Error('bad APNs key file')))).rejects.toThrow('bad APNs key file');
    expect(lifecycle.status()).toEqual({ state: 'failed', error: 'bad APNs key file' });
  });

  it('reports detail only while running', async () => {
    const lifecycle = new RoleLifecycle();
    expect(lifecycle.status(() => ({ leading: true }))).toEqual({ state: 'starting' });
    await lifecycle.start(() => Promise.resolve());
    expect(lifecycle.status(() => ({ leading: true }))).toEqual({ state: 'running', detail: { leading: true } });
  });
});

describe('a consuming role', () => {
  it('reports the partitions it owns while it runs', async () => {
    const lifecycle = new RoleLifecycle();
    await lifecycle.start(() => Promise.resolve());
    expect(consumerStatus(lifecycle, subscription([0, 3]))).toEqual({ state: 'running', detail: { partitions: { 'push.tasks': [0, 3] } } });
  });

  it('fails for good once its consumer has stopped, and stays failed', async () => {
    const lifecycle = new RoleLifecycle();
    await lifecycle.start(() => Promise.resolve());
    const member = subscription([1]);
    member.stop(new Error('The coordinator is not aware of this member'));
    expect(consumerStatus(lifecycle, member)).toEqual({ state: 'failed', error: 'The coordinator is not aware of this member' });
    expect(lifecycle.state).toBe('failed');
  });

  it('does not count a stop while draining as a failure', async () => {
    const lifecycle = new RoleLifecycle();
    await lifecycle.start(() => Promise.resolve());
    const member = subscription([1]);
    const closing = lifecycle.close(() => new Promise<void>(() => {}));
    member.stop(new Error('consumer disconnected'));
    expect(consumerStatus(lifecycle, member).state).toBe('draining');
    void closing;
  });
});
