import { describe, expect, it } from 'vitest';
import { AdaptiveLimit, type Permit, type PermitOutcome } from '../../src/store/cassandra/adaptive-limit.ts';

const fast: PermitOutcome = { kind: 'write', latencyMs: 10 };

/** Takes `count` permits at once (all must be free). */
async function take(limit: AdaptiveLimit, count: number): Promise<Permit[]> {
  return Promise.all(Array.from({ length: count }, () => limit.acquire()));
}

/** One round: as many statements as the limit allows, all answered with `outcome`. */
async function round(limit: AdaptiveLimit, outcome: PermitOutcome): Promise<void> {
  for (const permit of await take(limit, limit.limit)) permit.release(outcome);
}

describe('AdaptiveLimit', () => {
  it('doubles every round while nothing is congested, up to its maximum', async () => {
    const limit = new AdaptiveLimit({ initial: 4, min: 1, max: 40 });
    const seen: number[] = [];
    for (let n = 0; n < 5; n += 1) {
      await round(limit, fast);
      seen.push(limit.limit);
    }
    expect(seen).toEqual([8, 16, 32, 40, 40]);
  });

  it('halves once for a whole round of timeouts, then grows by about one a round', async () => {
    const limit = new AdaptiveLimit({ initial: 32, min: 1, max: 64 });
    await round(limit, 'congested');
    expect(limit.limit).toBe(16);
    const seen: number[] = [];
    for (let n = 0; n < 3; n += 1) {
      await round(limit, fast);
      seen.push(limit.limit);
    }
    expect(seen).toEqual([16, 17, 18]);
  });

  it('counts a signal only from statements sent after the last decrease', async () => {
    const limit = new AdaptiveLimit({ initial: 16, min: 1, max: 64 });
    const before = await take(limit, 8);
    before[0]?.release('congested');
    expect(limit.limit).toBe(8);
    // Sent under the old limit: their timeouts are the same congestion, already answered.
    for (const permit of before.slice(1)) permit.release('congested');
    expect(limit.limit).toBe(8);
    const after = await limit.acquire();
    after.release('congested');
    expect(limit.limit).toBe(4);
  });

  it('shrinks on answers far slower than the fastest recent one of their kind, not on a slower kind', async () => {
    const limit = new AdaptiveLimit({ initial: 20, min: 1, max: 20, slowFactor: 4, slowFloorMs: 50 });
    // Reads answer in 5 ms, batches in 150 ms: each is judged against its own kind.
    for (const permit of await take(limit, 10)) permit.release({ kind: 'read', latencyMs: 5 });
    for (const permit of await take(limit, 10)) permit.release({ kind: 'batch', latencyMs: 150 });
    for (const permit of await take(limit, 10)) permit.release({ kind: 'batch', latencyMs: 400 });
    expect(limit.limit).toBe(20);
    (await limit.acquire()).release({ kind: 'read', latencyMs: 40 });
    expect(limit.limit).toBe(20);
    (await limit.acquire()).release({ kind: 'batch', latencyMs: 900 });
    expect(limit.limit).toBe(10);
  });

  it('stays within its minimum and maximum, and remembers its lowest', async () => {
    const limit = new AdaptiveLimit({ initial: 8, min: 2, max: 9 });
    for (let n = 0; n < 5; n += 1) await round(limit, 'congested');
    expect(limit.limit).toBe(2);
    for (let n = 0; n < 50; n += 1) await round(limit, fast);
    expect(limit.limit).toBe(9);
    expect(limit.lowest).toBe(2);
  });

  it('makes a statement wait for a permit while the limit is reached, first come first served', async () => {
    const limit = new AdaptiveLimit({ initial: 2, min: 1, max: 2 });
    const [first, second] = await take(limit, 2);
    const granted: string[] = [];
    const third = limit.acquire().then((permit) => {
      granted.push('third');
      return permit;
    });
    const fourth = limit.acquire().then((permit) => {
      granted.push('fourth');
      return permit;
    });
    await Promise.resolve();
    expect(granted).toEqual([]);
    expect(limit.inFlight).toBe(2);
    first?.release('ignored');
    await third;
    expect(granted).toEqual(['third']);
    second?.release('ignored');
    (await fourth).release('ignored');
    (await third).release('ignored');
    expect(granted).toEqual(['third', 'fourth']);
    expect(limit.inFlight).toBe(0);
  });

  it('lets fewer statements through once it shrinks, and a release counts once', async () => {
    const limit = new AdaptiveLimit({ initial: 4, min: 1, max: 4 });
    const permits = await take(limit, 4);
    permits[0]?.release('congested');
    permits[0]?.release('congested');
    expect(limit.limit).toBe(2);
    expect(limit.inFlight).toBe(3);
    let granted = false;
    const waiting = limit.acquire().then((permit) => {
      granted = true;
      return permit;
    });
    permits[1]?.release('ignored');
    await Promise.resolve();
    expect(granted).toBe(false);
    permits[2]?.release('ignored');
    permits[3]?.release('ignored');
    (await waiting).release('ignored');
    expect(granted).toBe(true);
  });
});
