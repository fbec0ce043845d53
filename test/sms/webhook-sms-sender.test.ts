import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SmsDeliveryError } from '../../src/sms/sms-delivery-error.ts';
import { WebhookSmsSender } from '../../src/sms/webhook-sms-sender.ts';
import { memoryLogger } from '../support/memory-logger.ts';

interface WebhookCall {
  method: string | undefined;
  headers: IncomingHttpHeaders;
  body: unknown;
}

interface FakeWebhook {
  url: string;
  calls: WebhookCall[];
  close(): Promise<void>;
}

/** A local HTTP server standing in for the SMS provider; `answer` decides each response. */
async function startWebhook(answer: (response: ServerResponse) => void): Promise<FakeWebhook> {
  const calls: WebhookCall[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      calls.push({ method: request.method, headers: request.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      answer(response);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/sms`,
    calls,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

const message = { to: '+4915112345678', code: '123456', text: 'Your Demo code is 123456. It expires in 10 minutes.' };

describe('WebhookSmsSender', () => {
  let webhook: FakeWebhook | undefined;

  afterEach(async () => {
    await webhook?.close();
    webhook = undefined;
  });

  it('posts {to, code, text} as JSON with the bearer token', async () => {
    webhook = await startWebhook((response) => response.writeHead(202, { 'content-type': 'application/json' }).end('{"queued":true}'));
    const sender = new WebhookSmsSender({ url: webhook.url, token: 'sms-token-789', logger: memoryLogger().logger });

    await sender.send(message);

    expect(webhook.calls).toHaveLength(1);
    const [call] = webhook.calls;
    expect(call?.method).toBe('POST');
    expect(call?.headers['content-type']).toBe('application/json');
    expect(call?.headers.authorization).toBe('Bearer sms-token-789');
    expect(call?.body).toEqual(message);
  });

  it('sends no Authorization header when no token is configured', async () => {
    webhook = await startWebhook((response) => response.writeHead(200).end());
    const sender = new WebhookSmsSender({ url: webhook.url, logger: memoryLogger().logger });

    await sender.send(message);

    expect(webhook.calls[0]?.headers.authorization).toBeUndefined();
  });

  it('throws an error carrying the status when the webhook answers 500', async () => {
    webhook = await startWebhook((response) => response.writeHead(500).end('provider down'));
    const logs = memoryLogger();
    const sender = new WebhookSmsSender({ url: webhook.url, token: 'sms-token-789', logger: logs.logger });

    const failure = sender.send(message);

    await expect(failure).rejects.toBeInstanceOf(SmsDeliveryError);
    await expect(failure).rejects.toThrow('SMS delivery failed: webhook answered HTTP 500');
    await expect(failure).rejects.toMatchObject({ webhookStatus: 500, retryable: true, status: 503 });
    expect(logs.text()).not.toContain('sms-token-789');
  });

  it('treats a 4xx answer as a failure that retrying will not fix', async () => {
    webhook = await startWebhook((response) => response.writeHead(400).end());
    const sender = new WebhookSmsSender({ url: webhook.url, logger: memoryLogger().logger });

    await expect(sender.send(message)).rejects.toMatchObject({ webhookStatus: 400, retryable: false, status: 500 });
  });

  it('gives up when the webhook does not answer in time', async () => {
    webhook = await startWebhook(() => undefined);
    const sender = new WebhookSmsSender({ url: webhook.url, logger: memoryLogger().logger, timeoutMs: 200 });

    await expect(sender.send(message)).rejects.toThrow('SMS delivery failed: webhook did not answer within 200 ms');
    expect(webhook.calls).toHaveLength(1);
  });
});
