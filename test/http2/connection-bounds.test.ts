import { afterEach, describe, expect, it, vi } from 'vitest';
import { answerStatus, checkTrailers } from '../../src/http2/answer-headers.ts';
import { ConnectionError, ErrorCode } from '../../src/http2/connection-error.ts';
import { ControlFrameQueue } from '../../src/http2/control-frame-queue.ts';
import { FrameLimits } from '../../src/http2/frame-limits.ts';
import { HeaderBlockAssembler } from '../../src/http2/header-block.ts';
import type { H2StreamOwner } from '../../src/http2/h2-stream-owner.ts';
import { KeptBody, keptBodyLimit } from '../../src/http2/kept-body.ts';
import { PingKeepAlive } from '../../src/http2/ping-keep-alive.ts';
import { largestWindow, StreamTable } from '../../src/http2/stream-table.ts';

/** The error code a call throws, or undefined. */
function codeOf(call: () => unknown): number | undefined {
  try {
    call();
  } catch (error) {
    if (error instanceof ConnectionError) return error.code;
    throw error;
  }
  return undefined;
}

function times(count: number, call: () => void): void {
  for (let index = 0; index < count; index += 1) call();
}

describe('FrameLimits', () => {
  it('takes a burst of stray frames and refuses the next with ENHANCE_YOUR_CALM', () => {
    const limits = new FrameLimits({ burst: 10, perSecond: 0, perStream: 0 }, () => 0);
    times(10, () => limits.stray('PING'));
    expect(codeOf(() => limits.stray('PING'))).toBe(ErrorCode.enhanceYourCalm);
  });

  it('earns stray frames back with time, up to the burst', () => {
    let now = 0;
    const limits = new FrameLimits({ burst: 10, perSecond: 100, perStream: 0 }, () => now);
    times(10, () => limits.stray('PING'));
    // 50 ms at 100 a second: five more.
    now = 50;
    times(5, () => limits.stray('PING'));
    expect(codeOf(() => limits.stray('PING'))).toBe(ErrorCode.enhanceYourCalm);
    // A long quiet time gives back the burst, no more.
    now = 1_000_000;
    const after = new FrameLimits({ burst: 10, perSecond: 100, perStream: 0 }, () => now);
    now = 2_000_000;
    times(10, () => after.stray('PING'));
    expect(codeOf(() => after.stray('PING'))).toBe(ErrorCode.enhanceYourCalm);
  });

  it('earns stray frames back with each stream that ends, up to the burst', () => {
    const limits = new FrameLimits({ burst: 10, perSecond: 0, perStream: 4 }, () => 0);
    times(10, () => limits.stray('WINDOW_UPDATE'));
    limits.streamEnded();
    times(4, () => limits.stray('WINDOW_UPDATE'));
    expect(codeOf(() => limits.stray('WINDOW_UPDATE'))).toBe(ErrorCode.enhanceYourCalm);
    const rested = new FrameLimits({ burst: 10, perSecond: 0, perStream: 4 }, () => 0);
    times(100, () => rested.streamEnded());
    times(10, () => rested.stray('WINDOW_UPDATE'));
    expect(codeOf(() => rested.stray('WINDOW_UPDATE'))).toBe(ErrorCode.enhanceYourCalm);
  });

  it('names the last frame in its error', () => {
    const limits = new FrameLimits({ burst: 0, perSecond: 0, perStream: 0 }, () => 0);
    expect(() => limits.stray('PRIORITY')).toThrow('a flood of frames that carry nothing (the last: PRIORITY)');
  });
});

describe('ControlFrameQueue', () => {
  it('owes up to its limit of control frames and refuses one more with ENHANCE_YOUR_CALM', () => {
    const queue = new ControlFrameQueue(3);
    times(3, () => queue.add('PING ack'));
    expect(queue.owed).toBe(3);
    expect(codeOf(() => queue.add('PING ack'))).toBe(ErrorCode.enhanceYourCalm);
  });

  it('counts a flush\'s frames until its write completes, flushes in order', () => {
    const queue = new ControlFrameQueue(5);
    times(2, () => queue.add('SETTINGS ack'));
    const first = queue.flushing();
    times(3, () => queue.add('PING ack'));
    const second = queue.flushing();
    expect(queue.owed).toBe(5);
    expect(codeOf(() => queue.add('PING ack'))).toBe(ErrorCode.enhanceYourCalm);
    first?.();
    expect(queue.owed).toBe(3 + 1);
    second?.();
    expect(queue.owed).toBe(1);
  });

  it('needs no write callback for a flush without control frames', () => {
    expect(new ControlFrameQueue().flushing()).toBeUndefined();
  });
});

describe('HeaderBlockAssembler', () => {
  const limits = { bytes: 100, continuations: 3 };

  it('joins a block in as many CONTINUATION frames as allowed, and refuses one more', () => {
    const blocks = new HeaderBlockAssembler(limits);
    const bytes = Buffer.from('abcd');
    blocks.begin(1, true, bytes, 0, 1);
    expect(blocks.pendingStream).toBe(1);
    expect(blocks.continue(1, false, bytes, 1, 2)).toBeUndefined();
    expect(blocks.continue(1, false, bytes, 2, 3)).toBeUndefined();
    expect(blocks.continue(1, true, bytes, 3, 4)).toEqual({ streamId: 1, endStream: true, block: Buffer.from('abcd') });
    expect(blocks.pendingStream).toBeUndefined();

    blocks.begin(3, false, bytes, 0, 0);
    times(3, () => blocks.continue(3, false, bytes, 0, 0));
    expect(codeOf(() => blocks.continue(3, true, bytes, 0, 0))).toBe(ErrorCode.enhanceYourCalm);
  });

  it('takes a block of exactly its bytes and refuses one more', () => {
    const bytes = Buffer.alloc(100, 0x88);
    const blocks = new HeaderBlockAssembler(limits);
    blocks.begin(1, false, bytes, 0, 60);
    expect(blocks.continue(1, true, bytes, 0, 40)?.block.length).toBe(100);
    blocks.begin(3, false, bytes, 0, 60);
    expect(codeOf(() => blocks.continue(3, true, bytes, 0, 41))).toBe(ErrorCode.enhanceYourCalm);
  });

  it('keeps a copy of each fragment, as the read buffer is reused', () => {
    const bytes = Buffer.from('ab');
    const blocks = new HeaderBlockAssembler(limits);
    blocks.begin(1, false, bytes, 0, 1);
    bytes[0] = 0x7a;
    expect(blocks.continue(1, true, bytes, 1, 2)?.block.toString()).toBe('ab');
  });

  it('refuses a CONTINUATION without a block, or for another stream, as PROTOCOL_ERROR', () => {
    const blocks = new HeaderBlockAssembler(limits);
    expect(codeOf(() => blocks.continue(1, true, Buffer.alloc(0), 0, 0))).toBe(ErrorCode.protocolError);
    blocks.begin(1, false, Buffer.alloc(0), 0, 0);
    expect(codeOf(() => blocks.continue(3, true, Buffer.alloc(0), 0, 0))).toBe(ErrorCode.protocolError);
  });
});

describe('answerStatus', () => {
  it.each([
    ['100', 100],
    ['199', 199],
    ['200', 200],
    ['410', 410],
    ['599', 599],
  ])('reads status %s', (status, expected) => {
    expect(answerStatus([':status', status, 'apns-id', 'x'], 1)).toBe(expected);
  });

  it.each(['099', '101', '600', '1000', '20', '', '2 0', '20a', 'a00', '2:0', '2/0', '20:', '20/', '/00', ':00'])('refuses status %j as PROTOCOL_ERROR', (status) => {
    expect(codeOf(() => answerStatus([':status', status], 1))).toBe(ErrorCode.protocolError);
  });

  it('refuses an answer whose first field is not :status, or with another pseudo-header', () => {
    expect(codeOf(() => answerStatus([], 1))).toBe(ErrorCode.protocolError);
    expect(codeOf(() => answerStatus(['apns-id', 'x', ':status', '200'], 1))).toBe(ErrorCode.protocolError);
    expect(codeOf(() => answerStatus([':status', '200', 'apns-id', 'x', ':path', '/'], 1))).toBe(ErrorCode.protocolError);
    expect(codeOf(() => answerStatus([':status', '200', ':status', '200'], 1))).toBe(ErrorCode.protocolError);
  });

  it('takes trailers without pseudo-headers and refuses any', () => {
    expect(() => checkTrailers(['x-a', '1', 'x-b', '2'], 1)).not.toThrow();
    expect(codeOf(() => checkTrailers([':status', '200'], 1))).toBe(ErrorCode.protocolError);
    expect(codeOf(() => checkTrailers(['x-a', '1', ':status', '200'], 1))).toBe(ErrorCode.protocolError);
  });
});

describe('KeptBody', () => {
  it('keeps pieces up to the limit, cut at it', () => {
    const body = new KeptBody();
    expect(body.take()).toBeUndefined();
    body.add(Buffer.alloc(keptBodyLimit - 1, 'a'), 0, keptBodyLimit - 1, true);
    body.add(Buffer.from('bcd'), 0, 3, true);
    body.add(Buffer.from('e'), 0, 1, true);
    const kept = body.take();
    expect(kept?.length).toBe(keptBodyLimit);
    expect(kept?.subarray(-1).toString()).toBe('b');
  });

  it('copies a piece when told to, and keeps it as it is otherwise', () => {
    const source = Buffer.from('xyz');
    const copied = new KeptBody();
    copied.add(source, 1, 3, true);
    const kept = new KeptBody();
    kept.add(source, 1, 3, false);
    source[1] = 0x21;
    expect([copied.take()?.toString(), kept.take()?.toString()]).toEqual(['yz', '!z']);
  });
});

describe('PingKeepAlive', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('pings every interval with a payload of its own, and a ping unanswered for an interval is a dead connection', () => {
    vi.useFakeTimers();
    const sent: Buffer[] = [];
    let dead = 0;
    const keepAlive = new PingKeepAlive(1000, (payload) => sent.push(payload), () => (dead += 1));
    keepAlive.start();
    vi.advanceTimersByTime(1000);
    expect(sent).toHaveLength(1);
    const echo = Buffer.from(sent[0] as Buffer);
    expect(keepAlive.acked(Buffer.alloc(8), 0, 8)).toBe(false);
    expect(keepAlive.acked(Buffer.concat([Buffer.from('x'), echo]), 1, 9)).toBe(true);
    expect(keepAlive.acked(echo, 0, 8)).toBe(false);
    vi.advanceTimersByTime(1000);
    expect(sent).toHaveLength(2);
    expect(sent[1]?.equals(echo)).toBe(false);
    vi.advanceTimersByTime(1000);
    expect(dead).toBe(1);
    vi.advanceTimersByTime(5000);
    expect([dead, sent.length]).toEqual([1, 2]);
  });
});

describe('StreamTable', () => {
  const owner: H2StreamOwner = { request: { path: '/', pathRepeats: false, headers: [], body: Buffer.alloc(0) }, answered: () => undefined, failed: () => undefined };

  it('answers an open stream, nothing for one that ended, and refuses a stream never opened as PROTOCOL_ERROR', () => {
    const table = new StreamTable();
    const first = table.open(owner, 100);
    const second = table.open(owner, 100);
    expect([first.id, second.id, table.nextId]).toEqual([1, 3, 5]);
    table.remove(first);
    expect(table.find(1, 'DATA')).toBeUndefined();
    expect(table.find(3, 'DATA')).toBe(second);
    expect(codeOf(() => table.find(5, 'DATA'))).toBe(ErrorCode.protocolError);
    expect(codeOf(() => table.find(2, 'DATA'))).toBe(ErrorCode.protocolError);
  });

  it('moves every window by a new initial window, up to 2^31-1 and not past it', () => {
    const table = new StreamTable();
    const stream = table.open(owner, 100);
    table.moveWindows(largestWindow - 100);
    expect(stream.window).toBe(largestWindow);
    expect(codeOf(() => table.moveWindows(1))).toBe(ErrorCode.flowControlError);
  });

  it('unblocks the streams still open in the order they blocked', () => {
    const table = new StreamTable();
    const [a, b, c] = [table.open(owner, 0), table.open(owner, 0), table.open(owner, 0)];
    table.block(b);
    table.block(a);
    table.block(c);
    table.block(a);
    table.remove(c);
    expect(table.unblockAll().map((stream) => stream.id)).toEqual([b.id, a.id]);
    expect([a.blocked, b.blocked, c.blocked]).toEqual([false, false, false]);
    expect(table.unblockAll()).toEqual([]);
  });
});
