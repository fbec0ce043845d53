import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/http2/connection-error.ts';
import { FrameType } from '../../src/http2/frame-types.ts';
import { keptBodyLimit } from '../../src/http2/kept-body.ts';
import { testPki } from '../support/gateways/test-pki.ts';
import type { HostilePeer } from './support/hostile-h2-server.ts';
import { HostileHarness } from './support/hostile-harness.ts';
import { memoryInUse } from './support/memory.ts';
import { answerBlock, dataFrame, headersFrame, settingsFrame, windowUpdateFrame } from './support/wire.ts';

let harness: HostileHarness;

beforeAll(async () => {
  harness = new HostileHarness(await testPki());
});

afterEach(async () => {
  await harness.close();
});

/** A request on a connection the client ended: sent again elsewhere, its cause the breach with the GOAWAY's code. */
const lost = { reason: 'ConnectionLost', retryable: true, cause: expect.stringMatching(/^dropped by us: [A-Z_0-9]+: \S/) };
const largestWindow = 2 ** 31 - 1;

describe('Herald\'s HTTP/2 client against a server that abuses flow control', () => {
  it('ends the connection with FLOW_CONTROL_ERROR when WINDOW_UPDATE takes the connection window over 2^31-1', async () => {
    const { answers, peer } = await harness.play(async (server) => {
      await server.handshake();
      await server.request();
      server.send(windowUpdateFrame(0, largestWindow));
    });

    expect(answers[0]?.failure).toEqual(lost);
    expect((await peer.clientGoAway()).code).toBe(ErrorCode.flowControlError);
  });

  it('ends the connection with PROTOCOL_ERROR on a WINDOW_UPDATE of 0 for the connection', async () => {
    const { answers, peer } = await harness.play(async (server) => {
      await server.handshake();
      await server.request();
      server.send(windowUpdateFrame(0, 0));
    });

    expect(answers[0]?.failure).toEqual(lost);
    expect((await peer.clientGoAway()).code).toBe(ErrorCode.protocolError);
  });

  it.each([
    ['takes its window over 2^31-1', largestWindow, ErrorCode.flowControlError],
    ['is 0', 0, ErrorCode.protocolError],
  ])('resets only the stream whose WINDOW_UPDATE %s, and answers on', async (_, increment, code) => {
    let reset: Buffer | undefined;
    const { answers } = await harness.play(
      async (server) => {
        await server.handshake();
        const first = await server.request(1);
        const second = await server.request(2);
        server.send(windowUpdateFrame(first, increment));
        reset = (await server.next((frame) => frame.type === FrameType.rstStream && frame.streamId === first)).payload;
        server.send(headersFrame(second, answerBlock(200)));
      },
      { requests: 2 },
    );

    expect(answers.map((answer) => answer.status || answer.failure?.reason)).toEqual(['StreamReset', 200]);
    expect(reset?.readUInt32BE(0)).toBe(code);
  });

  it('ends the connection with FLOW_CONTROL_ERROR when a new initial window takes an open stream\'s window over 2^31-1', async () => {
    const { answers, peer } = await harness.play(async (server) => {
      await server.handshake();
      const stream = await server.request();
      // The stream's window is 65,535 less the body's 10 bytes; this raises it to the most, and the new initial window by one more.
      server.send(windowUpdateFrame(stream, largestWindow - (65_535 - 10)), settingsFrame([[0x4, 65_536]]));
    });

    expect(answers[0]?.failure).toEqual(lost);
    expect((await peer.clientGoAway()).code).toBe(ErrorCode.flowControlError);
  });

  it('settles a request at its deadline when the server never opens a window for its body', async () => {
    let session: HostilePeer | undefined;
    const started = performance.now();
    const { answers } = await harness.play(
      async (server) => {
        session = server;
        await server.handshake([[0x4, 0]]);
      },
      { requestTimeoutMs: 500 },
    );

    expect(answers[0]?.failure).toEqual({ reason: 'Timeout', retryable: true, cause: expect.stringMatching(/^no answer within \d+ ms$/) });
    expect(performance.now() - started).toBeLessThan(2000);
    // Only the HEADERS went: no DATA without window.
    expect(session?.received.filter((frame) => frame.type === FrameType.data)).toEqual([]);
  });

  it('settles a request at its deadline when the server never answers, cancelling its stream', async () => {
    let session: HostilePeer | undefined;
    const { answers } = await harness.play(
      async (server) => {
        session = server;
        await server.handshake();
      },
      { requestTimeoutMs: 300 },
    );

    expect(answers[0]?.failure).toEqual({ reason: 'Timeout', retryable: true, cause: expect.stringMatching(/^no answer within \d+ ms$/) });
    const reset = await session?.next((frame) => frame.type === FrameType.rstStream);
    expect(reset?.payload.readUInt32BE(0)).toBe(ErrorCode.cancel);
  });
});

describe('Herald\'s HTTP/2 client against a server that sends large or trickling bodies', () => {
  it('keeps 64 KiB of an error body of 20 MB, and the memory it holds stays bounded', async () => {
    const before = memoryInUse();
    const { answers } = await harness.play(async (server) => {
      await server.handshake();
      const stream = await server.request();
      server.send(headersFrame(stream, answerBlock(400), { endStream: false }));
      const chunk = Buffer.alloc(16_384, 'e');
      await server.flood(() => dataFrame(stream, chunk), { max: 1280, batch: 16 });
      server.send(dataFrame(stream, '', true));
    });

    expect(answers[0]?.status).toBe(400);
    expect(answers[0]?.body?.length).toBe(keptBodyLimit);
    expect(memoryInUse() - before).toBeLessThan(16 * 1024 * 1024);
  });

  it('keeps an error body sent a byte a frame whole, at the cost of its bytes', async () => {
    const body = Buffer.from(JSON.stringify({ reason: 'BadDeviceToken', padding: 'p'.repeat(20_000) }));
    const started = performance.now();
    const { answers } = await harness.play(async (server) => {
      await server.handshake();
      const stream = await server.request();
      server.send(headersFrame(stream, answerBlock(400), { endStream: false }));
      await server.flood((n) => dataFrame(stream, body.subarray(n, n + 1)), { max: body.length, batch: 1000 });
      server.send(dataFrame(stream, '', true));
    });

    expect(answers[0]?.status).toBe(400);
    expect(answers[0]?.body?.equals(body)).toBe(true);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('keeps exactly 64 KiB of an error body one byte longer, and all of one that long', async () => {
    for (const length of [keptBodyLimit, keptBodyLimit + 1]) {
      const { answers } = await harness.play(async (server) => {
        await server.handshake();
        const stream = await server.request();
        server.send(headersFrame(stream, answerBlock(500), { endStream: false }));
        for (let at = 0; at < length; at += 10_000) server.send(dataFrame(stream, Buffer.alloc(Math.min(10_000, length - at), 'x')));
        server.send(dataFrame(stream, '', true));
      });
      expect(answers[0]?.body?.length).toBe(keptBodyLimit);
    }
  });

  it('reads an answer whose frames come a byte a write', async () => {
    const { answers } = await harness.play(async (server) => {
      await server.handshake();
      const stream = await server.request();
      const bytes = Buffer.concat([headersFrame(stream, answerBlock(429, [['retry-after', '30']]), { endStream: false }), dataFrame(stream, Buffer.alloc(3000, 'r'), true)]);
      for (const byte of bytes) {
        server.socket.write(Buffer.from([byte]));
        await new Promise((resolve) => setImmediate(resolve));
      }
    });

    expect([answers[0]?.status, answers[0]?.header('retry-after'), answers[0]?.body?.length]).toEqual([429, '30', 3000]);
  });

  it('keeps none of a 200\'s body, however long', async () => {
    const { answers } = await harness.play(async (server) => {
      await server.handshake();
      const stream = await server.request();
      server.send(headersFrame(stream, answerBlock(200), { endStream: false }));
      await server.flood(() => dataFrame(stream, Buffer.alloc(16_384)), { max: 200, batch: 16 });
      server.send(dataFrame(stream, '', true));
    });

    expect([answers[0]?.status, answers[0]?.body]).toEqual([200, undefined]);
  });
});
