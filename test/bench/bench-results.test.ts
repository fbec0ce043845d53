import { describe, expect, it } from 'vitest';
import { nodeOptionsSuffix } from '../../bench/bench-results.ts';

describe('bench result names', () => {
  it('give a run under other Node flags a file of its own', () => {
    expect(nodeOptionsSuffix('--max-semi-space-size=32')).toBe('-node-max-semi-space-size-32');
    expect(nodeOptionsSuffix('--max-semi-space-size=32 --max-old-space-size=512')).toBe('-node-max-semi-space-size-32-max-old-space-size-512');
  });

  it('keep the default name without flags', () => {
    expect(nodeOptionsSuffix(undefined)).toBe('');
    expect(nodeOptionsSuffix('  ')).toBe('');
  });
});
