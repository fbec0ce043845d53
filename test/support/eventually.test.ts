import { describe, expect, it } from 'vitest';
import { eventually } from './eventually.ts';

describe('eventually', () => {
  it('answers the first reading that is done, reading again until then', async () => {
    let reads = 0;
    const value = await eventually('the third read', () => ++reads, (n) => n >= 3, { intervalMs: 1 });
    expect(value).toBe(3);
    expect(reads).toBe(3);
  });

  it('counts a read that throws as not yet, and answers once one succeeds', async () => {
    let reads = 0;
    const value = await eventually('a read that stops failing', () => {
      reads += 1;
      if (reads < 3) throw new Error('still starting');
      return 'up';
    });
    expect(value).toBe('up');
  });

  it('fails after the timeout, naming what it waited for and the last reading', async () => {
    let reads = 0;
    await expect(eventually('the status to be done', () => ({ status: `pending-${++reads}` }), (v) => v.status === 'done', { timeoutMs: 50 })).rejects.toThrow(
      /^waited 50 ms for the status to be done; saw \{ status: 'pending-\d+' \}$/,
    );
  });

  it('names the last error when every read failed, with the detail asked for', async () => {
    const failing = eventually(
      'PING',
      () => Promise.reject(new Error('ECONNREFUSED')),
      () => true,
      { timeoutMs: 50, detail: () => 'server said: port in use' },
    );
    await expect(failing).rejects.toThrow(new Error('waited 50 ms for PING; saw the error ECONNREFUSED; server said: port in use'));
  });

  it('fails at the deadline when a read never answers', async () => {
    const started = performance.now();
    await expect(eventually('a hanging read', () => new Promise(() => undefined), () => true, { timeoutMs: 50 })).rejects.toThrow(
      new Error('waited 50 ms for a hanging read; saw a read still unanswered'),
    );
    // Bounded by the deadline, not by the 30 s test timeout.
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('names what the read before answered when the last one is still under way at the deadline', async () => {
    let reads = 0;
    const slowThird = () => (++reads < 3 ? Promise.resolve({ left: 7 - reads }) : new Promise<{ left: number }>(() => undefined));
    await expect(eventually('none left', slowThird, (v) => v.left === 0, { timeoutMs: 200, intervalMs: 5 })).rejects.toThrow(
      new Error('waited 200 ms for none left; saw a read still unanswered, after { left: 5 }'),
    );
  });

  it('ends the wait at once when done throws', async () => {
    const exited = new Error('the server exited');
    await expect(
      eventually(
        'a server that exited',
        () => false,
        () => {
          throw exited;
        },
      ),
    ).rejects.toBe(exited);
  });
});
