import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../../src/core/clock.ts';
import { silentLogger } from '../../../../src/core/logger.ts';
import { webhookSettingsSchema } from '../../../../src/config/webhooks-schema.ts';
import { Webhooks } from '../../../../src/push/outcomes/webhooks/webhooks.ts';
import { eventually } from '../../../support/eventually.ts';
import { testPki } from '../../../support/gateways/test-pki.ts';
import { WebhookReceiver } from '../../../support/webhook-receiver.ts';
import { deliveryEvent, RecordedWebhookMetrics } from '../support/outcome-fixtures.ts';

const secret = 'tls-secret-0123456789abcdef';
const open: { receiver: WebhookReceiver; webhooks: Webhooks }[] = [];

afterEach(async () => {
  for (const { receiver, webhooks } of open.splice(0)) {
    await webhooks.close();
    await receiver.close();
  }
});

/** An HTTPS receiver with `certificate`, and webhooks to it that trust the test CA (the CA setting). */
async function overTls(certificate: 'server' | 'untrustedServer') {
  const pki = await testPki();
  const receiver = await WebhookReceiver.start({ secret, tls: { certPem: pki[certificate].certPem, keyPem: pki[certificate].keyPem } });
  const metrics = new RecordedWebhookMetrics();
  const webhooks = new Webhooks({
    endpoints: [{ appId: 'shop', name: 'tls', url: new URL(receiver.url), secret, events: new Set(['delivery.failed']) }],
    settings: webhookSettingsSchema.parse({ batchDelayMs: 0, retryBaseDelayMs: 20, retryMaxDelayMs: 100, shutdownDrainMs: 0 }),
    ca: pki.ca.certPem,
    clock: systemClock,
    logger: silentLogger(),
    metrics,
  });
  open.push({ receiver, webhooks });
  return { receiver, webhooks, metrics };
}

describe('webhooks over TLS', () => {
  it('deliver to an endpoint whose certificate the CA setting trusts', async () => {
    const { receiver, webhooks } = await overTls('server');
    webhooks.emit('shop', [{ type: 'delivery.failed', delivery: deliveryEvent(1) }]);
    await receiver.until('the event over TLS', (accepted) => accepted.length === 1);
    expect(receiver.batches[0]?.verified).toBe(true);
  });

  it('never send to an endpoint whose certificate no trusted CA signed', async () => {
    const { receiver, webhooks, metrics } = await overTls('untrustedServer');
    webhooks.emit('shop', [{ type: 'delivery.failed', delivery: deliveryEvent(1) }]);
    await eventually('refused connections', () => metrics.results.length, (count) => count >= 2);
    expect(new Set(metrics.results)).toEqual(new Set(['unreachable']));
    expect(receiver.batches).toEqual([]);
    expect(webhooks.queued('shop', 'tls')).toBe(1);
  });
});
