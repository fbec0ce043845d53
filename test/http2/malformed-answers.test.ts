import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/http2/connection-error.ts';
import { FrameFlag, FrameType } from '../../src/http2/frame-types.ts';
import { testPki } from '../support/gateways/test-pki.ts';
import type { HostilePeer, HostileScript } from './support/hostile-h2-server.ts';
import { HostileHarness } from './support/hostile-harness.ts';
import {
  answerBlock,
  continuationFrame,
  dataFrame,
  frame,
  headersFrame,
  hpackInteger,
  hpackString,
  indexedLiteralField,
  literalField,
  settingsFrame,
  statusField,
} from './support/wire.ts';

let harness: HostileHarness;

beforeAll(async () => {
  harness = new HostileHarness(await testPki());
});

afterEach(async () => {
  await harness.close();
});

/** A request on a connection the client ended: sent again elsewhere, its cause the breach with the GOAWAY's code. */
const lost = { reason: 'ConnectionLost', retryable: true, cause: expect.stringMatching(/^dropped by us: [A-Z_0-9]+: \S/) };

/** A server that answers the first request with `frames(stream)`, after its settings. */
function answering(frames: (stream: number) => Buffer[]): HostileScript {
  return async (server: HostilePeer): Promise<void> => {
    await server.handshake();
    const stream = await server.request();
    server.send(...frames(stream));
  };
}

describe('Herald\'s HTTP/2 client against a server whose answers are malformed', () => {
  it('refuses an HPACK integer with endless continuation octets as COMPRESSION_ERROR, never as the answer before it', async () => {
    // :status 200, then a literal whose name length is 127 followed by 200 octets of zero with the continuation bit:
    // such an integer once decoded as NaN, the rest of the block was dropped and the 200 counted as delivered.
    const overflow = Buffer.concat([Buffer.from([0x00, 0x7f]), Buffer.alloc(200, 0x80), Buffer.from([0x00])]);
    const { answers, peer } = await harness.play(answering((stream) => [headersFrame(stream, Buffer.concat([Buffer.from([0x88]), overflow]))]));

    expect(answers[0]?.status).toBe(0);
    expect(answers[0]?.failure).toEqual(lost);
    expect((await peer.clientGoAway()).code).toBe(ErrorCode.compressionError);
  });

  it.each([
    ['a status with a leading space', answerBlock(' 200')],
    ['a status in exponent form', answerBlock('2e2')],
    ['a hexadecimal status', answerBlock('0xc8')],
    ['a status with a decimal point', answerBlock('200.0')],
    ['a status of two digits', answerBlock('20')],
    ['a status of four digits', answerBlock('2000')],
    ['a status below 100', answerBlock('099')],
    ['a status of 600', answerBlock('600')],
    ['status 101', answerBlock('101')],
    ['an empty status', answerBlock('')],
    ['no :status', literalField('apns-id', 'abc')],
    [':status after another field', Buffer.concat([literalField('apns-id', 'abc'), statusField(200)])],
    ['two :status fields', Buffer.concat([statusField(200), statusField(200)])],
    ['a request pseudo-header in an answer', Buffer.concat([statusField(200), literalField(4, '/')])],
    ['an upper-case field name', Buffer.concat([statusField(200), literalField('Apns-Id', 'abc')])],
    ['a field name with a space', Buffer.concat([statusField(200), literalField('apns id', 'abc')])],
    ['an empty field name', Buffer.concat([statusField(200), literalField('', 'abc')])],
    ['a field value with a line feed', Buffer.concat([statusField(200), literalField('apns-id', 'a\nb')])],
    ['a field value with a NUL', Buffer.concat([statusField(200), literalField('apns-id', 'a\0b')])],
    ['a field value ending in a space', Buffer.concat([statusField(200), literalField('apns-id', 'abc ')])],
    ['a field value starting with a tab', Buffer.concat([statusField(200), literalField('apns-id', '\tabc')])],
  ])('refuses an answer with %s as PROTOCOL_ERROR: it never counts as an answer', async (_, block) => {
    const { answers, peer } = await harness.play(answering((stream) => [headersFrame(stream, block)]));

    expect(answers[0]?.status).toBe(0);
    expect(answers[0]?.failure).toEqual(lost);
    expect((await peer.clientGoAway()).code).toBe(ErrorCode.protocolError);
  });

  it.each([
    ['an indexed :status 200', Buffer.from([0x88]), 200],
    ['a literal status', answerBlock('410'), 410],
    ['a status of 599', answerBlock('599'), 599],
    ['a status of 100 before the answer', null, 204],
  ])('takes an answer with %s', async (_, block, status) => {
    const { answers } = await harness.play(
      answering((stream) =>
        block === null ? [headersFrame(stream, answerBlock('100'), { endStream: false }), headersFrame(stream, Buffer.from([0x89]))] : [headersFrame(stream, block)],
      ),
    );

    expect(answers[0]?.status).toBe(status);
  });

  it.each([
    ['an interim answer that ends the stream', (stream: number) => [headersFrame(stream, answerBlock('103'))]],
    ['trailers that do not end the stream', (stream: number) => [headersFrame(stream, answerBlock(200), { endStream: false }), headersFrame(stream, literalField('x-trailer', 'a'), { endStream: false })]],
    ['trailers with a pseudo-header', (stream: number) => [headersFrame(stream, answerBlock(200), { endStream: false }), headersFrame(stream, statusField(200))]],
    ['DATA before the answer\'s headers', (stream: number) => [dataFrame(stream, '{}', true)]],
    ['PUSH_PROMISE, which our settings refuse', (stream: number) => [frame(FrameType.pushPromise, FrameFlag.endHeaders, stream, Buffer.concat([Buffer.from([0, 0, 0, 2]), Buffer.from([0x82])]))]],
    ['HEADERS on a stream never opened', (stream: number) => [headersFrame(stream + 2, answerBlock(200))]],
    ['HEADERS on a stream the server would start', (stream: number) => [headersFrame(stream + 1, answerBlock(200))]],
    ['DATA on a stream never opened', (stream: number) => [dataFrame(stream + 2, 'x', true)]],
    ['RST_STREAM on a stream never opened', (stream: number) => [frame(FrameType.rstStream, 0, stream + 2, Buffer.alloc(4))]],
    ['WINDOW_UPDATE on a stream never opened', (stream: number) => [frame(FrameType.windowUpdate, 0, stream + 2, Buffer.from([0, 0, 0, 1]))]],
    ['a SETTINGS frame inside a header block', (stream: number) => [headersFrame(stream, statusField(200), { endHeaders: false }), settingsFrame([[0x1, 0]]), continuationFrame(stream, Buffer.alloc(0), true)]],
    ['a CONTINUATION without a header block', (stream: number) => [continuationFrame(stream, statusField(200), true)]],
    ['a CONTINUATION for another stream', (stream: number) => [headersFrame(stream, statusField(200), { endHeaders: false }), continuationFrame(stream + 2, Buffer.alloc(0), true)]],
    ['padding longer than a DATA frame', (stream: number) => [headersFrame(stream, answerBlock(400), { endStream: false }), frame(FrameType.data, FrameFlag.padded | FrameFlag.endStream, stream, Buffer.from([4, 1, 2, 3]))]],
    ['padding longer than a HEADERS frame', (stream: number) => [frame(FrameType.headers, FrameFlag.padded | FrameFlag.endHeaders | FrameFlag.endStream, stream, Buffer.from([9, 0x88]))]],
    ['priority fields longer than a HEADERS frame', (stream: number) => [frame(FrameType.headers, FrameFlag.priority | FrameFlag.endHeaders | FrameFlag.endStream, stream, Buffer.from([0, 0, 0, 0]))]],
  ])('ends the connection on %s with PROTOCOL_ERROR', async (_, frames) => {
    const { answers, peer } = await harness.play(answering(frames));

    expect(answers[0]?.failure).toEqual(lost);
    expect((await peer.clientGoAway()).code).toBe(ErrorCode.protocolError);
  });

  it('reads padded and prioritised frames whose padding fits', async () => {
    const { answers } = await harness.play(
      answering((stream) => [
        frame(FrameType.headers, FrameFlag.padded | FrameFlag.priority | FrameFlag.endHeaders, stream, Buffer.concat([Buffer.from([3, 0, 0, 0, 0, 16]), answerBlock(400), Buffer.alloc(3)])),
        frame(FrameType.data, FrameFlag.padded, stream, Buffer.concat([Buffer.from([5]), Buffer.from('{"reason":'), Buffer.alloc(5)])),
        frame(FrameType.data, FrameFlag.padded | FrameFlag.endStream, stream, Buffer.concat([Buffer.from([0]), Buffer.from('"BadTopic"}')])),
      ]),
    );

    expect(answers[0]?.status).toBe(400);
    expect(answers[0]?.body?.toString()).toBe('{"reason":"BadTopic"}');
  });

  it('ends the connection with ENHANCE_YOUR_CALM when a small block decodes to a header list over 64 KiB', async () => {
    // One 4,000-octet entry in the dynamic table, then a one-octet index to it, again and again: 20 octets of block, 80 KB of headers.
    const entry = indexedLiteralField('x-big', 'v'.repeat(3950));
    const block = Buffer.concat([statusField(200), entry, Buffer.alloc(20, 0x80 | 62)]);
    const { answers, peer } = await harness.play(answering((stream) => [headersFrame(stream, block)]));

    expect(answers[0]?.failure).toEqual(lost);
    expect((await peer.clientGoAway()).code).toBe(ErrorCode.enhanceYourCalm);
  });

  it('ends the connection with COMPRESSION_ERROR on a table size update over the 4,096 it allows', async () => {
    const { answers, peer } = await harness.play(answering((stream) => [headersFrame(stream, Buffer.concat([hpackInteger(0x20, 5, 4097), statusField(200)]))]));

    expect(answers[0]?.failure).toEqual(lost);
    expect((await peer.clientGoAway()).code).toBe(ErrorCode.compressionError);
  });

  it('ends the connection with FRAME_SIZE_ERROR on a frame longer than 16 KiB', async () => {
    const { answers, peer } = await harness.play(answering((stream) => [dataFrame(stream, Buffer.alloc(16_385)) ]));

    expect(answers[0]?.failure).toEqual(lost);
    expect((await peer.clientGoAway()).code).toBe(ErrorCode.frameSizeError);
  });

  it('gives up a server whose first frame is not SETTINGS, as a connect that failed', async () => {
    const { answers } = await harness.play(async (server) => {
      await server.next((frame) => frame.type === FrameType.settings);
      server.send(frame(FrameType.ping, 0, 0, Buffer.alloc(8)), settingsFrame());
    });

    expect(answers[0]?.failure).toEqual({ reason: 'ConnectFailed', retryable: true, cause: expect.any(String) });
  });

  it('reads a field whose name is a literal Huffman-free string of every allowed character', async () => {
    const name = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyz";
    const { answers } = await harness.play(answering((stream) => [headersFrame(stream, Buffer.concat([statusField(200), Buffer.from([0x00]), hpackString(name), hpackString('v a l u e')]))]));

    expect(answers[0]?.status).toBe(200);
    expect(answers[0]?.header(name)).toBe('v a l u e');
  });
});
