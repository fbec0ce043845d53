import { expect, it } from 'vitest';
import { HeraldMetrics } from '../../src/runtime/herald-metrics.ts';

it('shows every gateway and outcome of herald_push_deliveries_total at zero before the first delivery, so rate() sees the first ones', async () => {
  const text = await new HeraldMetrics().text();
  for (const gateway of ['apns', 'fcm']) {
    for (const outcome of ['delivered', 'invalid-token', 'failed', 'not-sent']) {
      expect(text).toContain(`herald_push_deliveries_total{gateway="${gateway}",outcome="${outcome}"} 0`);
    }
  }
});

it('adds deliveries to the zero series', async () => {
  const metrics = new HeraldMetrics();
  metrics.sender.delivery('apns', 'delivered', 3);
  expect(await metrics.text()).toContain('herald_push_deliveries_total{gateway="apns",outcome="delivered"} 3');
});
