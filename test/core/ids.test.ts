import { describe, expect, it } from 'vitest';
import { newObjectId, newSecret, randomHexId } from '../../src/core/ids.ts';

describe('ids', () => {
  it('draws 24 lowercase hex digits, all different, across many refills of the pool', () => {
    const ids = Array.from({ length: 256 * 5 + 7 }, () => randomHexId());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('spreads the ids of one pool over every hex digit at every position', () => {
    const ids = Array.from({ length: 256 }, () => newObjectId());
    for (let position = 0; position < 24; position += 1) {
      // 256 draws of 16 digits leave one unseen with probability about 16 * (15/16)^256, under 1e-6.
      expect(new Set(ids.map((id) => id[position])).size).toBe(16);
    }
  });

  it('keeps secrets apart from the id pool: 32 base32 digits each', () => {
    const secrets = Array.from({ length: 100 }, () => newSecret());
    for (const secret of secrets) expect(secret).toMatch(/^[a-z2-7]{32}$/);
    expect(new Set(secrets).size).toBe(secrets.length);
  });
});
