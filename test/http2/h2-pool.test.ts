import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { constants, createSecureServer, type Http2SecureServer, type Http2Session, type IncomingHttpHeaders, type ServerHttp2Stream, type Settings } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { createServer as createTlsServer, type Server as TlsServer, type TLSSocket } from 'node:tls';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { H2Pool } from '../../src/http2/h2-pool.ts';
import type { H2PoolObserver } from '../../src/http2/h2-pool-options.ts';
import type { H2Request } from '../../src/http2/h2-request.ts';
import { testPki, type TestPki } from '../support/gateways/test-pki.ts';

const run = promisify(execFile);
const poolModule = resolve(import.meta.dirname, '../../src/http2/h2-pool.ts');

let pki: TestPki;
let pools: H2Pool[] = [];
let servers: (Http2SecureServer | TlsServer)[] = [];

beforeAll(async () => {
  pki = await testPki();
});

afterEach(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
  pools = [];
  for (const server of servers) server.close();
  servers = [];
});

interface Seen {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A node:http2 server (nghttp2, as the fakes are) that answers each request as `answer` says, after reading its body. */
async function h2Server(answer: (stream: ServerHttp2Stream, seen: Seen) => void, settings: Settings = {}): Promise<{ origin: string; seen: Seen[]; sessions: Set<Http2Session> }> {
  const seen: Seen[] = [];
  const sessions = new Set<Http2Session>();
  const server = createSecureServer({ cert: pki.server.certPem, key: pki.server.keyPem, settings });
  server.on('session', (session) => sessions.add(session));
  server.on('stream', (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const request = { headers, body: Buffer.concat(chunks) };
      seen.push(request);
      answer(stream, request);
    });
    stream.on('error', () => undefined);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return { origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, sessions };
}

/** A TLS server that agrees to `alpn` and then does what `speak` does with the socket. */
async function tlsServer(alpn: string[], speak: (socket: TLSSocket) => void): Promise<string> {
  const server = createTlsServer({ cert: pki.server.certPem, key: pki.server.keyPem, ALPNProtocols: alpn }, speak);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Counts the connections a pool opens. */
class CountingObserver implements H2PoolObserver {
  opened = 0;
  closed = 0;
  answers = 0;

  connectionOpened(): void {
    this.opened += 1;
  }

  connectionClosed(): void {
    this.closed += 1;
  }

  answered(): void {
    this.answers += 1;
  }
}

function pool(origin: string, options: { connections?: number; requestTimeoutMs?: number; lastStreamId?: number; observer?: H2PoolObserver } = {}): H2Pool {
  const created = new H2Pool({
    origin,
    tls: { ca: pki.ca.certPem },
    connections: options.connections ?? 1,
    requestTimeoutMs: options.requestTimeoutMs ?? 5000,
    pingIntervalMs: 60_000,
    observer: options.observer,
    lastStreamId: options.lastStreamId,
  });
  pools.push(created);
  return created;
}

function post(path: string, body: Buffer = Buffer.from('{}'), headers: string[] = ['apns-topic', 'com.example.app']): H2Request {
  return { path, pathRepeats: false, headers, body };
}

const ok = (stream: ServerHttp2Stream): void => {
  stream.respond({ ':status': 200 });
  stream.end();
};

describe('Herald\'s HTTP/2 connections', () => {
  it('sends bodies larger than the server\'s stream and connection windows whole, waiting for its WINDOW_UPDATEs', async () => {
    const server = await h2Server((stream, seen) => {
      stream.respond({ ':status': 200, 'x-length': String(seen.body.length) });
      stream.end();
    }, { initialWindowSize: 1000 });
    const bodies = Array.from({ length: 30 }, (_, n) => randomBytes(10_000 + n));
    const answers = await Promise.all(bodies.map((body, n) => pool(server.origin).exchange(post(`/b/${n}`, body))));

    expect(answers.map((answer) => [answer.status, answer.header('x-length')])).toEqual(bodies.map((body) => [200, String(body.length)]));
    const received = new Map(server.seen.map((request) => [request.headers[':path'], request.body]));
    bodies.forEach((body, n) => expect(received.get(`/b/${n}`)?.equals(body)).toBe(true));
  });

  it('sends every header right when the server allows no header table, and when it allows one', async () => {
    for (const headerTableSize of [0, 4096]) {
      const server = await h2Server(ok, { headerTableSize });
      const client = pool(server.origin);
      const headers = ['apns-topic', 'com.example.app', 'authorization', `bearer ${'t'.repeat(300)}`, 'apns-priority', '10'];
      for (let round = 0; round < 3; round += 1) {
        const answers = await Promise.all(Array.from({ length: 20 }, (_, n) => client.exchange(post(`/3/device/${round}-${n}`, Buffer.from('{}'), headers))));
        expect(answers.every((answer) => answer.status === 200)).toBe(true);
      }
      expect(server.seen).toHaveLength(60);
      for (const request of server.seen) {
        expect(request.headers).toMatchObject({ ':method': 'POST', ':scheme': 'https', 'apns-topic': 'com.example.app', authorization: `bearer ${'t'.repeat(300)}`, 'apns-priority': '10' });
        expect(request.headers[':authority']).toBe(new URL(server.origin).host);
      }
      expect(new Set(server.seen.map((request) => request.headers[':path'])).size).toBe(60);
    }
  });

  it('follows a header table the server shrinks and grows again between requests, every header arriving right', async () => {
    const server = await h2Server(ok);
    const client = pool(server.origin);
    const headers = ['apns-topic', 'com.example.app', 'authorization', `bearer ${'t'.repeat(300)}`];
    for (const headerTableSize of [4096, 0, 100, 4096]) {
      // Once the client has acked the setting, its next block must announce the table it now uses.
      await Promise.all([...server.sessions].map((session) => new Promise((resolve) => session.settings({ headerTableSize }, resolve))));
      const answers = await Promise.all(Array.from({ length: 5 }, (_, n) => client.exchange(post(`/t/${headerTableSize}/${n}`, Buffer.from('{}'), headers))));
      expect(answers.every((answer) => answer.status === 200)).toBe(true);
    }
    expect(server.seen).toHaveLength(20);
    for (const request of server.seen) expect(request.headers).toMatchObject({ 'apns-topic': 'com.example.app', authorization: `bearer ${'t'.repeat(300)}` });
  });

  it('reads an answer whose headers span CONTINUATION frames, with its trailers and body', async () => {
    const big = 'b'.repeat(30_000);
    const server = await h2Server((stream) => {
      stream.respond({ ':status': 503, 'x-big': big }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'x-trailer': 'done' }));
      stream.end('{"reason":"ServiceUnavailable"}');
    });
    const answer = await pool(server.origin).exchange(post('/3/device/a'));

    expect(answer.status).toBe(503);
    expect(answer.header('x-big')).toBe(big);
    expect(answer.body?.toString()).toBe('{"reason":"ServiceUnavailable"}');
  });

  it('takes the answer after an interim 103', async () => {
    const server = await h2Server((stream) => {
      stream.additionalHeaders({ ':status': 103, link: '</style.css>; rel=preload' });
      stream.respond({ ':status': 410, 'apns-id': 'abc' });
      stream.end('{"reason":"Unregistered"}');
    });
    const answer = await pool(server.origin).exchange(post('/3/device/a'));

    expect([answer.status, answer.header('apns-id'), answer.body?.toString()]).toEqual([410, 'abc', '{"reason":"Unregistered"}']);
  });

  it('keeps 64 KiB of an error body and none of a 200\'s', async () => {
    const server = await h2Server((stream, seen) => {
      stream.respond({ ':status': seen.headers[':path'] === '/error' ? 400 : 200 });
      stream.end(Buffer.alloc(100_000, 'e'));
    });
    const client = pool(server.origin);
    const [error, fine] = await Promise.all([client.exchange(post('/error')), client.exchange(post('/fine'))]);

    expect([error.status, error.body?.length]).toEqual([400, 64 * 1024]);
    expect([fine.status, fine.body]).toEqual([200, undefined]);
  });

  it('fails a stream the server refuses as StreamRefused, to be sent again', async () => {
    const server = await h2Server((stream) => stream.close(constants.NGHTTP2_REFUSED_STREAM));
    const client = pool(server.origin);
    const refused = await client.exchange(post('/refuse'));

    expect([refused.status, refused.failure]).toEqual([0, { reason: 'StreamRefused', retryable: true }]);
    expect(client.inFlight).toBe(0);
  });

  it('fails a stream the server resets in the middle of its answer as StreamReset, to be sent again', async () => {
    const origin = await tlsServer(['h2'], (socket) => {
      socket.once('data', () => {
        socket.write(frame(0x4, 0, 0, Buffer.alloc(0)));
        // Stream 1's answer: HEADERS with :status 500 (static index 14), part of a body, then RST_STREAM(INTERNAL_ERROR).
        setTimeout(() => socket.write(Buffer.concat([frame(0x1, 0x4, 1, Buffer.from([0x8e])), frame(0x0, 0, 1, Buffer.from('{"reas')), frame(0x3, 0, 1, Buffer.from([0, 0, 0, 2]))])), 50);
      });
      socket.on('error', () => undefined);
    });
    const client = pool(origin);
    const reset = await client.exchange(post('/reset'));

    expect(reset.failure).toEqual({ reason: 'StreamReset', retryable: true, cause: 'RST_STREAM INTERNAL_ERROR' });
    expect(client.inFlight).toBe(0);
  });

  it('fails a request whose header value HTTP/2 cannot carry without sending it, and goes on on the same connection', async () => {
    const server = await h2Server(ok);
    const observer = new CountingObserver();
    const client = pool(server.origin, { observer });
    await client.exchange(post('/first'));
    const refused = await client.exchange(post('/3/device/a', Buffer.from('{}'), ['apns-collapse-id', 'line\nbreak']));
    const after = await client.exchange(post('/after'));

    expect(refused.failure).toEqual({ reason: 'InvalidHeader', retryable: false });
    expect(after.status).toBe(200);
    expect(server.seen.map((request) => request.headers[':path'])).toEqual(['/first', '/after']);
    expect(observer.opened).toBe(1);
  });

  it('never has more streams open than a limit the server lowers mid-connection', async () => {
    let open = 0;
    let most = 0;
    const server = await h2Server((stream) => {
      setTimeout(() => {
        ok(stream);
        open -= 1;
      }, 10);
    });
    const client = pool(server.origin);
    await client.exchange(post('/first'));
    open = 0;
    for (const session of server.sessions) session.settings({ maxConcurrentStreams: 3 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const counted = h2Counting(server, () => {
      open += 1;
      most = Math.max(most, open);
    });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, n) => client.exchange(post(`/n/${n}`))));

    counted();
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(3);
  });

  it('retires a connection whose stream ids are used up and delivers the rest on new ones', async () => {
    const server = await h2Server(ok);
    const observer = new CountingObserver();
    const client = pool(server.origin, { lastStreamId: 7, connections: 2, observer });
    for (let round = 0; round < 5; round += 1) {
      const answers = await Promise.all(Array.from({ length: 6 }, (_, n) => client.exchange(post(`/r/${round}/${n}`))));
      expect(answers.every((answer) => answer.status === 200)).toBe(true);
    }

    expect(server.seen).toHaveLength(30);
    // Four streams a connection (ids 1, 3, 5, 7): 30 requests take at least eight.
    expect(observer.opened).toBeGreaterThanOrEqual(8);
    expect(server.sessions.size).toBe(observer.opened);
    expect(observer.answers).toBe(30);
  });

  it('backs off between connects that fail while a busy connection still serves', async () => {
    let connections = 0;
    const server = createSecureServer({ cert: pki.server.certPem, key: pki.server.keyPem, settings: { maxConcurrentStreams: 1 } });
    server.on('secureConnection', (socket: TLSSocket) => {
      connections += 1;
      // Only the first connection is served; every later one is dropped after its handshake.
      if (connections > 1) socket.destroy();
    });
    server.on('stream', (stream) => {
      stream.on('error', () => undefined);
      stream.resume();
      setTimeout(() => ok(stream), 300);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    servers.push(server);
    const client = pool(`https://127.0.0.1:${(server.address() as AddressInfo).port}`, { connections: 2 });
    const answers = await Promise.all(Array.from({ length: 5 }, (_, n) => client.exchange(post(`/n/${n}`))));

    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    // 1.5 s of waiting requests: connects after 0.1, 0.2, 0.4 and 0.8 s, not one after another.
    expect(connections).toBeGreaterThanOrEqual(3);
    expect(connections).toBeLessThanOrEqual(7);
  });

  it('does not keep a process alive with an idle connection', async () => {
    const server = await h2Server(ok);
    const script = `
      import { H2Pool } from ${JSON.stringify(poolModule)};
      const pool = new H2Pool({ origin: ${JSON.stringify(server.origin)}, tls: { ca: ${JSON.stringify(pki.ca.certPem)} }, connections: 1, requestTimeoutMs: 5000, pingIntervalMs: 60000 });
      const answer = await pool.exchange({ path: '/3/device/a', pathRepeats: false, headers: [], body: Buffer.from('{}') });
      console.log(answer.status);
    `;
    const started = performance.now();
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { timeout: 10_000 });

    expect(stdout.trim()).toBe('200');
    expect(server.seen).toHaveLength(1);
    // The pool was never closed: the process ended on its own once the answer was in.
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('opens no connection while it closes after a request timed out waiting for a stream, and leaves none open', async () => {
    // The server allows no stream: the request waits in the queue until its deadline.
    const server = await h2Server(ok, { maxConcurrentStreams: 0 });
    const observer = new CountingObserver();
    const client = pool(server.origin, { requestTimeoutMs: 300, observer });
    const answer = await client.exchange(post('/waits'));
    await client.close();
    // A connection opened while closing would be up by now.
    await new Promise((resolve) => setTimeout(resolve, 200));

    expect(answer.failure).toEqual({ reason: 'Timeout', retryable: true, cause: 'no answer within 300 ms' });
    expect(observer.opened).toBe(1);
    expect(observer.closed).toBe(1);
    expect(server.sessions.size).toBe(1);
  });

  it('starts a request on a free connection at once behind one that timed out waiting', async () => {
    const server = await h2Server(ok, { maxConcurrentStreams: 0 });
    const client = pool(server.origin, { requestTimeoutMs: 300 });
    expect((await client.exchange(post('/waits'))).failure?.reason).toBe('Timeout');
    // Once the client has acked the new limit, it has applied it.
    await Promise.all([...server.sessions].map((session) => new Promise((resolve) => session.settings({ maxConcurrentStreams: 10 }, resolve))));
    const started = performance.now();

    expect((await client.exchange(post('/goes'))).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(250);
  });

  it('answers the server\'s PINGs', async () => {
    const server = await h2Server(ok);
    await pool(server.origin).exchange(post('/first'));
    const [session] = server.sessions;
    const rtt = await new Promise<number>((resolve, reject) => session?.ping((error, duration) => (error === null ? resolve(duration) : reject(error))));

    expect(rtt).toBeGreaterThanOrEqual(0);
  });

  it('refuses a server that does not agree to HTTP/2', async () => {
    const origin = await tlsServer(['http/1.1'], () => undefined);
    const answer = await pool(origin).exchange(post('/3/device/a'));

    expect(answer.failure).toEqual({ reason: 'ConnectFailed', retryable: true, cause: expect.any(String) });
  });

  it('drops a connection on which the server breaks the protocol, and every request settles as one to send again', async () => {
    const breaches: [string, Buffer][] = [
      ['DATA on stream 0', frame(0x0, 0, 0, Buffer.from('x'))],
      ['a frame longer than allowed', Buffer.from([0x00, 0x40, 0x01, 0x00, 0x00, 0, 0, 0, 1])],
      ['PUSH_PROMISE', frame(0x5, 0x4, 1, Buffer.from([0, 0, 0, 2]))],
      ['headers on a stream never opened', frame(0x1, 0x5, 99, Buffer.from([0x88]))],
      ['a header block that does not decode', frame(0x1, 0x5, 1, Buffer.from([0x80]))],
      ['SETTINGS of the wrong length', frame(0x4, 0, 0, Buffer.from([0, 1, 0]))],
    ];
    for (const [, breach] of breaches) {
      const origin = await tlsServer(['h2'], (socket) => {
        socket.once('data', () => {
          socket.write(frame(0x4, 0, 0, Buffer.alloc(0)));
          setTimeout(() => socket.write(breach), 20);
        });
        socket.on('error', () => undefined);
      });
      const client = pool(origin);
      const answers = await Promise.all([client.exchange(post('/a')), client.exchange(post('/b'))]);
      for (const answer of answers) expect(answer.failure).toEqual({ reason: 'ConnectionLost', retryable: true, cause: expect.stringMatching(/^dropped by us: [A-Z_]+: \S/) });
      expect(client.inFlight).toBe(0);
    }
  });

  it('says what the system said when a connect fails: a refused port, an untrusted certificate', async () => {
    const port = await closedPort();
    const refused = await pool(`https://127.0.0.1:${port}`).exchange(post('/a'));
    expect(refused.failure).toEqual({ reason: 'ConnectFailed', retryable: true, cause: `connect ECONNREFUSED 127.0.0.1:${port}` });

    const server = await h2Server(ok);
    const untrusting = new H2Pool({ origin: server.origin, tls: {}, connections: 1, requestTimeoutMs: 5000, pingIntervalMs: 60_000 });
    pools.push(untrusting);
    const untrusted = await untrusting.exchange(post('/b'));
    expect(untrusted.failure).toEqual({ reason: 'ServerCertificateRejected', retryable: false, cause: expect.stringMatching(/^(UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY): \w/) });
    expect(server.seen).toEqual([]);
  });

  it('fails a request that waited past its deadline for a connection as the last connect failed, and says so', async () => {
    const port = await closedPort();
    // The first request fails with the connect; the second waits out the backoff (100 ms) past its own deadline.
    const client = pool(`https://127.0.0.1:${port}`, { requestTimeoutMs: 60 });
    expect((await client.exchange(post('/a'))).failure?.reason).toBe('ConnectFailed');
    const waited = await client.exchange(post('/b'));
    expect(waited.failure).toEqual({ reason: 'ConnectFailed', retryable: true, cause: `no connection within 60 ms; the last connect failed: connect ECONNREFUSED 127.0.0.1:${port}` });
  });

  it('says the server closed the connection under a request it never answered', async () => {
    const origin = await tlsServer(['h2'], (socket) => {
      socket.once('data', () => {
        socket.write(frame(0x4, 0, 0, Buffer.alloc(0)));
        setTimeout(() => socket.end(), 50);
      });
      socket.on('error', () => undefined);
    });
    const answer = await pool(origin).exchange(post('/a'));
    expect(answer.failure).toEqual({ reason: 'ConnectionLost', retryable: true, cause: 'the connection closed before the answer' });
  });

  it('settles every request, without throwing, whatever bytes a server sends after its settings', async () => {
    for (let round = 0; round < 25; round += 1) {
      const noise = randomBytes(1 + ((round * 97) % 400));
      const origin = await tlsServer(['h2'], (socket) => {
        socket.once('data', () => {
          socket.write(Buffer.concat([frame(0x4, 0, 0, Buffer.alloc(0)), noise]));
          setTimeout(() => socket.end(), 100);
        });
        socket.on('error', () => undefined);
      });
      const client = pool(origin, { requestTimeoutMs: 1000 });
      const answers = await Promise.all([client.exchange(post('/a')), client.exchange(post('/b'))]);
      for (const answer of answers) expect(answer.status === 0 ? answer.failure?.retryable : true).toBe(true);
      expect(client.inFlight).toBe(0);
    }
  });
});

/** A port on 127.0.0.1 nothing listens on: one a server had a moment ago. */
async function closedPort(): Promise<number> {
  const server = createTlsServer({});
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** One frame as the wire has it. */
function frame(type: number, flags: number, streamId: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(9);
  header.writeUIntBE(payload.length, 0, 3);
  header[3] = type;
  header[4] = flags;
  header.writeUInt32BE(streamId, 5);
  return Buffer.concat([header, payload]);
}

/** Calls `onStream` for each stream the server opens from now on; answers a function that stops it. */
function h2Counting(server: { sessions: Set<Http2Session> }, onStream: () => void): () => void {
  const listeners = [...server.sessions].map((session) => {
    session.on('stream', onStream);
    return () => session.off('stream', onStream);
  });
  return () => listeners.forEach((stop) => stop());
}
