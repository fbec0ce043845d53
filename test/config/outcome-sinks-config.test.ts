import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileConfig, ConfigError, loadConfig } from '../../src/config/load-config.ts';
import { loadWebhookEndpoints } from '../../src/push/outcomes/webhooks/load-webhook-endpoints.ts';

const single = { HERALD_APP_ID: 'shop', HERALD_APP_KEY: 'app-key-123', HERALD_MASTER_KEY: 'master-key-123' };
const load = (env: Record<string, string>) => loadConfig({ env: { ...single, HERALD_DATA_DIR: mkdtempSync(join(tmpdir(), 'herald-config-')), ...env } }).config;
const secret = 'whsec-0123456789abcdef';
const withWebhooks = (webhooks: unknown) => compileConfig({ apps: [{ id: 'shop', key: 'app-key-123', masterKey: 'master-key-123', webhooks }] });

describe('webhook endpoints in the config', () => {
  it('takes an https endpoint with its secret and the default events', () => {
    const [endpoint] = withWebhooks([{ url: 'https://hooks.example.com/herald', secret }]).apps[0]?.webhooks ?? [];
    expect(endpoint).toEqual({ name: 'default', url: 'https://hooks.example.com/herald', secret, events: ['push.done', 'delivery.failed', 'installation.removed'] });
  });

  it.each([
    ['http:// to another host', { url: 'http://hooks.example.com/herald', secret }, /must be https:\/\//],
    ['a URL with credentials', { url: 'https://user:pass@hooks.example.com/', secret }, /must not carry credentials/],
    ['neither secret nor secretFile', { url: 'https://hooks.example.com/' }, /give secret or secretFile/],
    ['both secret and secretFile', { url: 'https://hooks.example.com/', secret, secretFile: '/run/secrets/hook' }, /give secret or secretFile/],
    ['a short secret', { url: 'https://hooks.example.com/', secret: 'short' }, /at least 16 characters/],
    ['an unknown event', { url: 'https://hooks.example.com/', secret, events: ['push.sent'] }, /webhooks\.0\.events\.0/],
    ['a name with capitals', { url: 'https://hooks.example.com/', secret, name: 'Warehouse' }, /lower-case letters/],
  ])('refuses %s, naming the setting', (_case, endpoint, message) => {
    expect(() => withWebhooks([endpoint])).toThrow(message);
    expect(() => withWebhooks([endpoint])).toThrow(/apps\.0\.webhooks\.0/);
  });

  it('takes http:// to the loopback address only', () => {
    for (const url of ['http://127.0.0.1:8080/hook', 'http://localhost:9000/', 'http://[::1]:9000/']) {
      expect(withWebhooks([{ url, secret }]).apps[0]?.webhooks[0]?.url).toBe(url);
    }
    expect(() => withWebhooks([{ url: 'http://10.0.0.5/hook', secret }])).toThrow(ConfigError);
  });

  it('refuses two endpoints of one app under the same name', () => {
    expect(() => withWebhooks([{ url: 'https://a.example.com/', secret }, { url: 'https://b.example.com/', secret }])).toThrow(/another endpoint of the app is named default/);
    expect(withWebhooks([{ url: 'https://a.example.com/', secret }, { name: 'b', url: 'https://b.example.com/', secret, events: ['delivery.succeeded'] }]).apps[0]?.webhooks).toHaveLength(2);
  });

  it('makes the single app\'s endpoint from the HERALD_WEBHOOK_* variables', () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-webhook-'));
    writeFileSync(join(dir, 'secret'), `${secret}\n`);
    const config = load({ HERALD_WEBHOOK_URL: 'https://hooks.example.com/herald', HERALD_WEBHOOK_SECRET_FILE: join(dir, 'secret'), HERALD_WEBHOOK_EVENTS: 'push.done,delivery.succeeded' });
    expect(config.apps[0]?.webhooks).toEqual([{ name: 'default', url: 'https://hooks.example.com/herald', secretFile: join(dir, 'secret'), events: ['push.done', 'delivery.succeeded'] }]);
    expect(loadWebhookEndpoints(config.apps)[0]).toMatchObject({ appId: 'shop', name: 'default', secret });
    expect(() => load({ HERALD_WEBHOOK_URL: 'http://hooks.example.com/', HERALD_WEBHOOK_SECRET: secret })).toThrow(/HERALD_WEBHOOK_URL \(apps\.0\.webhooks\.0\.url\)/);
  });

  it('refuses at start a secret file it cannot read or that holds too short a secret, naming the setting and not the secret', () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-webhook-'));
    writeFileSync(join(dir, 'short'), 'tiny-secret\n');
    const app = (secretFile: string) => ({ id: 'shop', webhooks: [{ name: 'default', url: 'https://hooks.example.com/', secretFile, events: ['push.done' as const] }] });
    expect(() => loadWebhookEndpoints([app(join(dir, 'missing'))])).toThrow(/apps\[0\]\.webhooks\[0\]\.secretFile: cannot read/);
    expect(() => loadWebhookEndpoints([app(join(dir, 'short'))])).toThrow(/shorter than 16 characters/);
    expect(() => loadWebhookEndpoints([app(join(dir, 'short'))])).not.toThrow(/tiny-secret/);
  });
});

describe('the outcome stream in the config', () => {
  it('is off by default, also with Kafka, has its own partitions, and is turned on by HERALD_OUTCOME_STREAM', () => {
    const kafka = load({ HERALD_KAFKA_BROKERS: 'k1:9092' });
    expect(kafka.push.outcomeStream).toEqual({ enabled: false, maxPendingEvents: 50_000, maxWaitMs: 1000, maxBatchEvents: 2000 });
    expect(kafka.bus.topics.pushOutcomes).toBe(12);
    expect(load({ HERALD_KAFKA_BROKERS: 'k1:9092', HERALD_OUTCOME_STREAM: 'true', HERALD_PUSH_OUTCOME_PARTITIONS: '48' })).toMatchObject({ push: { outcomeStream: { enabled: true } }, bus: { topics: { pushOutcomes: 48 } } });
  });
});
