import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { noopGatewayMetrics } from '../../../../src/push/gateways/gateway-metrics.ts';
import { MakerHttp, maxMakerAnswerBytes } from '../../../../src/push/gateways/makers/maker-http.ts';
import { testPki, type TestPki } from '../../../support/gateways/test-pki.ts';

let pki: TestPki;
beforeAll(async () => {
  pki = await testPki();
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An HTTPS/1.1 server on the test PKI answering with `handler`; counts its connections. */
async function server(handler: (req: IncomingMessage, res: ServerResponse) => void, certificate = 'trusted'): Promise<{ url: URL; connections: () => number }> {
  const files = certificate === 'trusted' ? pki.server : pki.untrustedServer;
  const sockets = new Set<Socket>();
  let connections = 0;
  const https: Server = createServer({ cert: files.certPem, key: files.keyPem, keepAlive: true }, handler);
  https.on('secureConnection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => https.close(() => resolve()));
  });
  return { url: new URL(`https://127.0.0.1:${(https.address() as AddressInfo).port}/v1/send`), connections: () => connections };
}

function http(requestTimeoutMs = 2000): MakerHttp {
  const client = new MakerHttp({ gateway: 'hms', ca: pki.ca.certPem, connections: 2, requestTimeoutMs, metrics: noopGatewayMetrics });
  cleanups.push(() => client.close());
  return client;
}

describe('MakerHttp', () => {
  it('posts over keep-alive connections trusted through the CA setting', async () => {
    const bodies: string[] = [];
    const { url, connections } = await server((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        bodies.push(`${req.headers['content-type']} ${body}`);
        res.writeHead(200, { 'retry-after': '3' }).end('{"code":"80000000"}');
      });
    });
    const client = http();
    for (const n of [1, 2, 3, 4, 5, 6]) {
      const answer = await client.post({ url, headers: { 'content-type': 'application/json' }, body: `{"n":${n}}` });
      expect(answer.failure).toBeUndefined();
      if (answer.failure !== undefined) return;
      expect([answer.status, answer.body.toString(), answer.truncated, answer.header('retry-after')]).toEqual([200, '{"code":"80000000"}', false, '3']);
    }
    expect(bodies.slice(0, 3)).toEqual(['application/json {"n":1}', 'application/json {"n":2}', 'application/json {"n":3}']);
    // Six requests one after another on the connections kept alive: at most the two the client may open.
    expect(connections()).toBeLessThanOrEqual(2);
  });

  it('refuses a server whose certificate the CA setting does not trust, without retrying', async () => {
    const { url } = await server((_req, res) => res.end('{}'), 'untrusted');
    expect(await http().post({ url, headers: {}, body: '' })).toEqual({
      failure: { reason: 'ServerCertificateRejected', retryable: false, cause: expect.stringMatching(/^(UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT): /) },
    });
  });

  it('keeps 64 KiB of a long answer and drops the rest', async () => {
    const { url } = await server((_req, res) => res.end(Buffer.alloc(200 * 1024, 0x61)));
    const answer = await http().post({ url, headers: {}, body: '' });
    if (answer.failure !== undefined) throw new Error(answer.failure.reason);
    expect(answer.body.length).toBe(maxMakerAnswerBytes);
    expect(answer.truncated).toBe(true);
  });

  it('keeps as much of an answer as the request asks for, and no more', async () => {
    const { url } = await server((_req, res) => res.end(Buffer.alloc(200 * 1024, 0x61)));
    const whole = await http().post({ url, headers: {}, body: '', maxAnswerBytes: 256 * 1024 });
    const cut = await http().post({ url, headers: {}, body: '', maxAnswerBytes: 100 * 1024 });
    if (whole.failure !== undefined || cut.failure !== undefined) throw new Error('no answer');
    expect([whole.body.length, whole.truncated]).toEqual([200 * 1024, false]);
    expect([cut.body.length, cut.truncated]).toEqual([100 * 1024, true]);
  });

  it('cuts off an answer that trickles past the deadline, and one that never comes', async () => {
    const timers = new Set<NodeJS.Timeout>();
    cleanups.push(() => Promise.resolve(timers.forEach((timer) => clearInterval(timer))));
    const { url } = await server((req, res) => {
      if (req.url?.includes('hang') === true) return;
      res.writeHead(200);
      const timer = setInterval(() => res.write('a'), 50);
      timers.add(timer);
      res.once('close', () => clearInterval(timer));
    });
    const client = http(300);
    const started = performance.now();
    const timeout = { failure: { reason: 'Timeout', retryable: true, cause: 'no whole answer within 300 ms' } };
    expect(await client.post({ url, headers: {}, body: '' })).toEqual(timeout);
    expect(await client.post({ url: new URL('/hang', url), headers: {}, body: '' })).toEqual(timeout);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('answers ConnectFailed where nothing listens, and ClientClosed once closed', async () => {
    const { url } = await server((_req, res) => res.end('{}'));
    const closed = new URL(url);
    closed.port = '1';
    const client = http();
    expect(await client.post({ url: closed, headers: {}, body: '' })).toEqual({ failure: { reason: 'ConnectFailed', retryable: true, cause: expect.stringContaining('ECONNREFUSED') } });
    await client.close();
    expect(await client.post({ url, headers: {}, body: '' })).toEqual({ failure: { reason: 'ClientClosed', retryable: true } });
  });
});
