import { once } from 'node:events';
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/http2/connection-error.ts';
import { keptBodyLimit } from '../../../src/http2/kept-body.ts';
import { createGatewayTransport } from '../../../src/push/gateways/create-gateway-transport.ts';
import { gatewayTransportKinds, type GatewayTransport } from '../../../src/push/gateways/gateway-transport.ts';
import { RecordingMetrics } from '../../support/gateways/recording-metrics.ts';
import { testPki, type TestPki } from '../../support/gateways/test-pki.ts';
import { memoryLogger } from '../../support/memory-logger.ts';
import { HostileH2Server } from '../../http2/support/hostile-h2-server.ts';
import { answerBlock, goAwayFrame, headersFrame } from '../../http2/support/wire.ts';

let pki: TestPki;
let server: Http2SecureServer | undefined;
let transports: GatewayTransport[] = [];
let hostile: HostileH2Server | undefined;

beforeAll(async () => {
  pki = await testPki();
});

afterEach(async () => {
  await Promise.all(transports.map((transport) => transport.close()));
  transports = [];
  server?.close();
  server = undefined;
  await hostile?.close();
  hostile = undefined;
});

/** A gateway answering 400 with an error body of `length` bytes, written in 16 KiB pieces. */
async function gatewayWithErrorBody(length: number): Promise<string> {
  server = createSecureServer({ cert: pki.server.certPem, key: pki.server.keyPem });
  server.on('stream', (stream) => {
    stream.on('error', () => undefined);
    stream.resume();
    stream.on('end', () => {
      stream.respond({ ':status': 400 });
      const piece = Buffer.alloc(16 * 1024, 'e');
      let left = length;
      const write = (): void => {
        while (left > 0) {
          const size = Math.min(left, piece.length);
          left -= size;
          if (!stream.write(piece.subarray(0, size))) {
            stream.once('drain', write);
            return;
          }
        }
        stream.end();
      };
      write();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe.each(gatewayTransportKinds)('the %s gateway transport', (kind) => {
  it('keeps at most 64 KiB of an error body, as the other transport does', async () => {
    const origin = await gatewayWithErrorBody(4 * 1024 * 1024);
    const transport = createGatewayTransport(kind, {
      gateway: 'apns',
      origin,
      tls: { ca: pki.ca.certPem },
      sessions: 1,
      requestTimeoutMs: 10_000,
      pingIntervalMs: 60_000,
      metrics: new RecordingMetrics(),
    });
    transports.push(transport);
    const answer = await transport.exchange({ path: '/3/device/a', pathRepeats: false, headers: ['apns-topic', 'com.example.app'], body: Buffer.from('{}') });

    expect(answer.status).toBe(400);
    expect(answer.body?.length).toBe(keptBodyLimit);
    expect(answer.body?.every((byte) => byte === 0x65)).toBe(true);
  });

  it('keeps the whole of an error body up to the limit', async () => {
    const origin = await gatewayWithErrorBody(keptBodyLimit);
    const transport = createGatewayTransport(kind, {
      gateway: 'apns',
      origin,
      tls: { ca: pki.ca.certPem },
      sessions: 1,
      requestTimeoutMs: 10_000,
      pingIntervalMs: 60_000,
      metrics: new RecordingMetrics(),
    });
    transports.push(transport);
    const answer = await transport.exchange({ path: '/3/device/a', pathRepeats: false, headers: [], body: Buffer.from('{}') });

    expect(answer.body?.length).toBe(keptBodyLimit);
  });

  it('logs a flood of GOAWAY frames once, and the stream the gateway kept is answered', async () => {
    hostile = await HostileH2Server.start(pki, async (peer) => {
      await peer.handshake();
      const stream = await peer.request();
      await peer.flood(() => goAwayFrame(stream, ErrorCode.noError), { max: 300 });
      peer.send(headersFrame(stream, answerBlock(200)));
    });
    const logs = memoryLogger('info');
    const transport = createGatewayTransport(kind, {
      gateway: 'apns',
      origin: hostile.origin,
      tls: { ca: pki.ca.certPem },
      sessions: 1,
      requestTimeoutMs: 10_000,
      pingIntervalMs: 60_000,
      metrics: new RecordingMetrics(),
      logger: logs.logger,
    });
    transports.push(transport);
    const answer = await transport.exchange({ path: '/3/device/a', pathRepeats: false, headers: [], body: Buffer.from('{}') });

    expect(answer.status).toBe(200);
    expect(logs.lines.filter((line) => String(line.msg).includes('GOAWAY'))).toHaveLength(1);
  });
});
