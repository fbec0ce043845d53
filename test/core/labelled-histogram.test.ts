import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { LabelledHistogram } from '../../src/core/labelled-histogram.ts';

describe('LabelledHistogram', () => {
  const buckets = [0.005, 0.01, 0.1, 1];
  const observations: ['apns' | 'fcm', number][] = [
    ['apns', 0.001],
    ['apns', 0.005],
    ['apns', 0.0051],
    ['apns', 0.5],
    ['apns', 7],
    ['fcm', 0.02],
  ];

  it("exposes the same text as prom-client's Histogram given the same observations", async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const histogram = new LabelledHistogram({ name: 'x_seconds', help: 'help', label: 'gateway', values: ['apns', 'fcm'], buckets, registers: [ours] });
    const reference = new Histogram({ name: 'x_seconds', help: 'help', labelNames: ['gateway'], buckets, registers: [theirs] });
    for (const [gateway, seconds] of observations) {
      histogram.observe(gateway, seconds);
      reference.observe({ gateway }, seconds);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).toContain('x_seconds_bucket{le="0.005",gateway="apns"} 2');
    expect(await ours.metrics()).toContain('x_seconds_count{gateway="apns"} 5');
  });

  it('starts again from zero when the registry is reset', async () => {
    const registry = new Registry();
    const histogram = new LabelledHistogram({ name: 'y_seconds', help: 'help', label: 'gateway', values: ['apns'], buckets, registers: [registry] });
    histogram.observe('apns', 0.2);
    registry.resetMetrics();
    expect(await registry.metrics()).toContain('y_seconds_count{gateway="apns"} 0');
    expect(await registry.metrics()).toContain('y_seconds_sum{gateway="apns"} 0');
  });

  it('refuses buckets that do not increase', () => {
    expect(() => new LabelledHistogram({ name: 'z', help: 'h', label: 'l', values: ['a'], buckets: [1, 1], registers: [] })).toThrow(
      new RangeError('z: buckets must be finite and increasing'),
    );
  });
});
