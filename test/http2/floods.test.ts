import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/http2/connection-error.ts';
import { FrameFlag, FrameType } from '../../src/http2/frame-types.ts';
import { testPki, type TestPki } from '../support/gateways/test-pki.ts';
import { endLines, HostileHarness } from './support/hostile-harness.ts';
import { memoryInUse } from './support/memory.ts';
import { answerBlock, continuationFrame, dataFrame, frame, goAwayFrame, headersFrame, pingFrame, rstStreamFrame, settingsAck, settingsFrame, windowUpdateFrame } from './support/wire.ts';

let pki: TestPki;
let harness: HostileHarness;

beforeAll(async () => {
  pki = await testPki();
  harness = new HostileHarness(pki);
});

afterEach(async () => {
  await harness.close();
});

/** A request on a connection the client ended: sent again elsewhere, its cause the breach with the GOAWAY's code. */
const lost = { reason: 'ConnectionLost', retryable: true, cause: expect.stringMatching(/^dropped by us: [A-Z_0-9]+: \S/) };
/** Frames a flood may send at most; a client that never cuts it off lets every one through. */
const floodSize = 1_000_000;

describe('Herald\'s HTTP/2 client against a server that floods it', () => {
  it('ends a header block that CONTINUATION frames never finish after 8 of them, holding none of the flood', async () => {
    let sent = 0;
    const before = memoryInUse();
    const { answers, peer } = await harness.play(async (server) => {
      await server.handshake();
      const stream = await server.request();
      server.send(headersFrame(stream, answerBlock(200), { endHeaders: false }));
      sent = await server.flood(() => continuationFrame(stream, Buffer.alloc(0)), { max: floodSize });
    });

    expect(answers[0]?.failure).toEqual(lost);
    expect((await peer.clientGoAway()).code).toBe(ErrorCode.enhanceYourCalm);
    await peer.closed;
    expect(sent).toBeLessThan(floodSize / 10);
    expect(memoryInUse() - before).toBeLessThan(16 * 1024 * 1024);
  });

  it('ends a header block of one-byte CONTINUATION frames after 8 of them', async () => {
    const { answers, peer } = await harness.play(async (server) => {
      await server.handshake();
      const stream = await server.request();
      server.send(headersFrame(stream, Buffer.alloc(0), { endHeaders: false }));
      const block = answerBlock(200, [['x-long', 'v'.repeat(100)]]);
      // One byte a frame: the ninth CONTINUATION is one too many, though the block is small.
      server.send(...[...block].slice(0, 9).map((byte) => continuationFrame(stream, Buffer.from([byte]))));
    });

    expect(answers[0]?.failure).toEqual(lost);
    expect((await peer.clientGoAway()).code).toBe(ErrorCode.enhanceYourCalm);
  });

  it('reads a header block in 8 CONTINUATION frames', async () => {
    const { answers } = await harness.play(async (server) => {
      await server.handshake();
      const stream = await server.request();
      const block = answerBlock(503, [['x-long', 'v'.repeat(100)]]);
      const cut = Math.ceil(block.length / 9);
      const pieces = Array.from({ length: 9 }, (_, n) => block.subarray(n * cut, (n + 1) * cut));
      server.send(
        headersFrame(stream, pieces[0] as Buffer, { endHeaders: false }),
        ...pieces.slice(1).map((piece, n) => continuationFrame(stream, piece, n === 7)),
      );
    });

    expect(answers[0]?.status).toBe(503);
    expect(answers[0]?.header('x-long')).toBe('v'.repeat(100));
  });

  it('ends a header block longer than 80 KiB', async () => {
    const { answers, peer } = await harness.play(async (server) => {
      await server.handshake();
      const stream = await server.request();
      server.send(headersFrame(stream, Buffer.alloc(16_384, 0x88), { endHeaders: false }));
      await server.flood(() => continuationFrame(stream, Buffer.alloc(16_384, 0x88)), { max: 20, batch: 1 });
    });

    expect(answers[0]?.failure).toEqual(lost);
    expect((await peer.clientGoAway()).code).toBe(ErrorCode.enhanceYourCalm);
  });

  it.each([
    ['PING', () => pingFrame(Buffer.from('flooding'))],
    ['SETTINGS', () => settingsFrame([[0x3, 100]])],
    ['PRIORITY', () => frame(FrameType.priority, 0, 1, Buffer.from([0, 0, 0, 0, 16]))],
    ['a frame of an unknown type', () => frame(0xfa, 0, 0, Buffer.from('grease'))],
    ['unsolicited PING acks', () => pingFrame(Buffer.from('not ours'), true)],
    ['unsolicited SETTINGS acks', () => settingsAck],
  ])('ends a connection flooded with %s with ENHANCE_YOUR_CALM, holding none of it', async (_, make) => {
    let sent = 0;
    const before = memoryInUse();
    const { answers, peer, logs } = await harness.play(async (server) => {
      await server.handshake();
      await server.request();
      sent = await server.flood(make, { max: floodSize });
    });

    expect(answers[0]?.failure).toEqual(lost);
    expect((await peer.clientGoAway()).code).toBe(ErrorCode.enhanceYourCalm);
    expect(sent).toBeLessThan(floodSize / 10);
    expect(endLines(logs)).toEqual([expect.objectContaining({ level: 40, code: ErrorCode.enhanceYourCalm })]);
    await peer.closed;
    expect(memoryInUse() - before).toBeLessThan(16 * 1024 * 1024);
  });

  it('ends a connection whose server floods PINGs while it reads nothing, with memory bounded', async () => {
    const before = memoryInUse();
    const { answers, clientClosed, logs } = await harness.play(async (server) => {
      await server.handshake();
      await server.request();
      server.stopReading();
      await server.flood(() => pingFrame(), { max: floodSize });
    });

    expect(answers[0]?.failure).toEqual(lost);
    // The server reads nothing, so it never sees our GOAWAY: the log says what it named.
    expect(endLines(logs)).toEqual([expect.objectContaining({ level: 40, code: ErrorCode.enhanceYourCalm })]);
    await clientClosed;
    expect(memoryInUse() - before).toBeLessThan(16 * 1024 * 1024);
  });

  /** PINGs and SETTINGS a hundred at a time, each write read apart: within the budget of stray frames (lifted here), only acks left unread can end it. */
  const askingForAcks = (n: number): Buffer => (n % 2 === 0 ? pingFrame() : settingsFrame());
  const strayFramesLifted = { strayFrames: { burst: Infinity, perSecond: 0, perStream: 0 } };

  it('owes at most 1000 control frames to a server that reads nothing, however slowly it asks for them', async () => {
    const before = memoryInUse();
    const { answers, clientClosed, logs } = await harness.play(
      async (server) => {
        await server.handshake();
        await server.request();
        server.stopReading();
        await server.flood(askingForAcks, { max: 20 * floodSize, batch: 100 });
      },
      { limits: strayFramesLifted, requestTimeoutMs: 60_000 },
    );

    expect(answers[0]?.failure).toEqual(lost);
    expect(endLines(logs)).toEqual([expect.objectContaining({ level: 40, code: ErrorCode.enhanceYourCalm, err: expect.stringContaining('1000 control frames owed') })]);
    await clientClosed;
    expect(memoryInUse() - before).toBeLessThan(32 * 1024 * 1024);
  }, 60_000);

  it('answers as many acks as a server that reads them asks for', async () => {
    const { answers, peer } = await harness.play(
      async (server) => {
        await server.handshake();
        const stream = await server.request();
        await server.flood(askingForAcks, { max: 100_000, batch: 100 });
        server.send(headersFrame(stream, answerBlock(200)));
      },
      { limits: strayFramesLifted },
    );

    expect(answers[0]?.status).toBe(200);
    expect(peer.goAway()).toBeUndefined();
  });

  it('logs a GOAWAY flood once and ends it, while the streams the server kept finish', async () => {
    const { answers, peer, logs } = await harness.play(
      async (server) => {
        await server.handshake();
        const first = await server.request(1);
        await server.request(2);
        // The last stream kept is the first: the second is refused and sent again elsewhere.
        await server.flood(() => goAwayFrame(first, ErrorCode.noError, 'going away'), { max: 500 });
        server.send(headersFrame(first, answerBlock(200)));
        await server.flood(() => goAwayFrame(first, ErrorCode.noError, 'going away'), { max: floodSize });
      },
      { requests: 2 },
    );

    expect(answers.map((answer) => answer.status || answer.failure?.reason)).toEqual([200, 'GoAway']);
    await peer.closed;
    const lines = endLines(logs);
    expect(lines).toEqual([expect.objectContaining({ level: 30, msg: 'HTTP/2 server sent GOAWAY; the connection takes no new streams', code: ErrorCode.noError })]);
  });

  it.each([
    ['RST_STREAM', (stream: number) => rstStreamFrame(stream, ErrorCode.cancel)],
    ['WINDOW_UPDATE', (stream: number) => windowUpdateFrame(stream, 1)],
    ['DATA', (stream: number) => dataFrame(stream, 'late')],
    ['HEADERS', (stream: number) => headersFrame(stream, answerBlock(200))],
  ])('ends a connection flooded with %s for a stream that has ended', async (_, make) => {
    let sent = 0;
    const { answers, peer } = await harness.play(
      async (server) => {
        await server.handshake();
        const first = await server.request(1);
        const second = await server.request(2);
        server.send(headersFrame(first, answerBlock(200)));
        sent = await server.flood(() => make(first), { max: floodSize });
        server.send(headersFrame(second, answerBlock(200)));
      },
      { requests: 2 },
    );

    expect(answers.map((answer) => answer.status || answer.failure?.reason)).toEqual([200, 'ConnectionLost']);
    expect((await peer.clientGoAway()).code).toBe(ErrorCode.enhanceYourCalm);
    expect(sent).toBeLessThan(floodSize / 10);
  });

  it('takes a few frames for ended streams, as servers send them, and answers on', async () => {
    const { answers } = await harness.play(
      async (server) => {
        await server.handshake();
        const first = await server.request(1);
        const second = await server.request(2);
        server.send(
          headersFrame(first, answerBlock(200)),
          rstStreamFrame(first, ErrorCode.noError),
          windowUpdateFrame(first, 100),
          frame(FrameType.priority, 0, first, Buffer.from([0, 0, 0, 0, 16])),
          frame(0xfa, 0, 0, Buffer.from('grease')),
          pingFrame(),
          headersFrame(second, answerBlock(410), { endStream: false }),
          dataFrame(second, '{"reason":"Unregistered"}', true),
        );
      },
      { requests: 2 },
    );

    expect(answers.map((answer) => answer.status)).toEqual([200, 410]);
    expect(answers[1]?.body?.toString()).toBe('{"reason":"Unregistered"}');
  });

  it.each([
    ['empty DATA frames', true, (stream: number) => dataFrame(stream, '')],
    ['DATA frames of padding only', true, (stream: number) => frame(FrameType.data, FrameFlag.padded, stream, Buffer.from([3, 0, 0, 0]))],
    ['interim answers', false, (stream: number) => headersFrame(stream, answerBlock(103), { endStream: false })],
  ])('ends a connection flooded with %s on an open stream', async (_, answerFirst, make) => {
    let sent = 0;
    const { answers, peer } = await harness.play(async (server) => {
      await server.handshake();
      const stream = await server.request();
      if (answerFirst) server.send(headersFrame(stream, answerBlock(200), { endStream: false }));
      sent = await server.flood(() => make(stream), { max: floodSize });
    });

    expect(answers[0]?.failure).toEqual(lost);
    expect((await peer.clientGoAway()).code).toBe(ErrorCode.enhanceYourCalm);
    expect(sent).toBeLessThan(floodSize / 10);
  });
});
