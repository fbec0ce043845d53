import { describe, expect, it, vi } from 'vitest';
import { withDeadline } from './with-deadline.ts';

describe('withDeadline', () => {
  it('answers what the event answers, when it comes in time', async () => {
    await expect(withDeadline(Promise.resolve('arrived'), 'the event')).resolves.toBe('arrived');
  });

  it('passes the event’s own failure through', async () => {
    const failure = new Error('refused');
    await expect(withDeadline(Promise.reject(failure), 'the event')).rejects.toBe(failure);
  });

  it('fails after the timeout, naming what it waited for and what it saw', async () => {
    await expect(withDeadline(new Promise(() => undefined), '3 deliveries', { timeoutMs: 30, seen: () => '2' })).rejects.toThrow(
      new Error('waited 30 ms for 3 deliveries; saw 2'),
    );
  });

  it('still times out while a test holds fake timers', async () => {
    vi.useFakeTimers();
    try {
      await expect(withDeadline(new Promise(() => undefined), 'an event', { timeoutMs: 30 })).rejects.toThrow(new Error('waited 30 ms for an event'));
    } finally {
      vi.useRealTimers();
    }
  });
});
