import { once } from 'node:events';
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { connect, createSecureContext } from 'node:tls';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { H2Connection } from '../../src/http2/h2-connection.ts';
import type { H2StreamOwner } from '../../src/http2/h2-stream-owner.ts';
import { largestStreamId } from '../../src/http2/our-settings.ts';
import { testPki, type TestPki } from '../support/gateways/test-pki.ts';

let pki: TestPki;
let server: Http2SecureServer | undefined;

beforeAll(async () => {
  pki = await testPki();
});

afterEach(() => {
  server?.close();
  server = undefined;
});

/** A server allowing `maxConcurrentStreams` streams, answering each 200 after 30 ms, and a ready connection to it. */
async function connected(maxConcurrentStreams: number): Promise<{ connection: H2Connection; closed: Promise<void> }> {
  server = createSecureServer({ cert: pki.server.certPem, key: pki.server.keyPem, settings: { maxConcurrentStreams } });
  server.on('stream', (stream) => {
    stream.on('error', () => undefined);
    stream.resume();
    stream.on('end', () =>
      setTimeout(() => {
        if (stream.destroyed) return;
        stream.respond({ ':status': 200 });
        stream.end();
      }, 30),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  let closed!: () => void;
  const whenClosed = new Promise<void>((resolve) => (closed = resolve));
  const connection = await new Promise<H2Connection>((resolve) => {
    const created: H2Connection = new H2Connection(
      {
        peer: `127.0.0.1:${port}`,
        authority: `127.0.0.1:${port}`,
        connectTimeoutMs: 5000,
        pingIntervalMs: 60_000,
        lastStreamId: largestStreamId,
        logger: undefined,
      },
      { ready: () => resolve(created), freed: () => undefined, retired: () => undefined, closed: () => closed() },
      connect({ host: '127.0.0.1', port, secureContext: createSecureContext({ ca: pki.ca.certPem }), ALPNProtocols: ['h2'] }),
    );
  });
  return { connection, closed: whenClosed };
}

/** Starts `count` requests on `connection`; answers how each ended, once all have. */
function startMany(connection: H2Connection, count: number): Promise<string[]> {
  const outcomes: string[] = [];
  return new Promise((resolve) => {
    const settle = (outcome: string): void => {
      outcomes.push(outcome);
      if (outcomes.length === count) resolve(outcomes.sort());
    };
    for (let index = 0; index < count; index += 1) {
      const owner: H2StreamOwner = {
        request: { path: `/p/${index}`, pathRepeats: false, headers: [], body: Buffer.from('{}') },
        answered: (status) => settle(String(status)),
        failed: (failure) => settle(failure.reason),
      };
      connection.start(owner);
    }
  });
}

describe('H2Connection', () => {
  it('refuses streams past the server\'s limit at once, to be sent again, and keeps the connection', async () => {
    const { connection } = await connected(10);
    const outcomes = await startMany(connection, 25);

    expect(outcomes.filter((outcome) => outcome === '200')).toHaveLength(10);
    expect(outcomes.filter((outcome) => outcome === 'ConnectionUnavailable')).toHaveLength(15);
    expect(await startMany(connection, 10)).toEqual(Array.from({ length: 10 }, () => '200'));
    await connection.close(1000);
  });

  it('fails a request started after it closed instead of leaving it waiting', async () => {
    const { connection, closed } = await connected(10);
    connection.destroy();
    await closed;

    expect(await startMany(connection, 3)).toEqual(['ConnectionLost', 'ConnectionLost', 'ConnectionLost']);
  });
});
