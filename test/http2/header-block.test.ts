import { describe, expect, it } from 'vitest';
import { ConnectionError, ErrorCode } from '../../src/http2/connection-error.ts';
import { HeaderBlockAssembler } from '../../src/http2/header-block.ts';

const limits = { bytes: 32, continuations: 3 };

/** The error `run` throws, which must be a ConnectionError. */
function connectionError(run: () => unknown): ConnectionError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConnectionError) return error;
    throw error;
  }
  return expect.fail('no connection error');
}

describe('HeaderBlockAssembler', () => {
  it('joins a block whose HEADERS frame carries no fragment and whose CONTINUATION frames carry it all', () => {
    const blocks = new HeaderBlockAssembler(limits);
    blocks.begin(1, true, Buffer.alloc(0), 0, 0);
    expect(blocks.pendingStream).toBe(1);
    expect(blocks.continue(1, false, Buffer.from('xxabc'), 2, 5)).toBeUndefined();
    expect(blocks.continue(1, true, Buffer.from('def'), 0, 3)).toEqual({ streamId: 1, endStream: true, block: Buffer.from('abcdef') });
    expect(blocks.pendingStream).toBeUndefined();
  });

  it('keeps a copy of each fragment, not the read buffer it came in', () => {
    const blocks = new HeaderBlockAssembler(limits);
    const read = Buffer.from('abc');
    blocks.begin(3, false, read, 0, 3);
    read.write('zzz');
    expect(blocks.continue(3, true, read, 0, 0)?.block.toString()).toBe('abc');
  });

  it('refuses a CONTINUATION for another stream, or with no block begun, as a PROTOCOL_ERROR', () => {
    const blocks = new HeaderBlockAssembler(limits);
    const alone = connectionError(() => blocks.continue(1, true, Buffer.alloc(0), 0, 0));
    expect([alone.code, alone.message]).toEqual([ErrorCode.protocolError, 'CONTINUATION without a header block']);
    blocks.begin(1, false, Buffer.from('a'), 0, 1);
    const other = connectionError(() => blocks.continue(3, true, Buffer.alloc(0), 0, 0));
    expect([other.code, other.message]).toEqual([ErrorCode.protocolError, 'CONTINUATION without a header block']);
  });

  it('takes as many CONTINUATION frames as its limit and refuses one more with ENHANCE_YOUR_CALM, naming the limit', () => {
    const blocks = new HeaderBlockAssembler(limits);
    blocks.begin(1, false, Buffer.alloc(0), 0, 0);
    for (let frame = 0; frame < limits.continuations; frame += 1) expect(blocks.continue(1, false, Buffer.alloc(0), 0, 0)).toBeUndefined();
    const error = connectionError(() => blocks.continue(1, true, Buffer.alloc(0), 0, 0));
    expect([error.code, error.message]).toEqual([ErrorCode.enhanceYourCalm, 'a header block in more than 3 CONTINUATION frames']);
  });

  it('takes a block of exactly its byte limit and refuses one byte more with ENHANCE_YOUR_CALM, naming the limit', () => {
    const full = new HeaderBlockAssembler(limits);
    full.begin(1, false, Buffer.alloc(16), 0, 16);
    expect(full.continue(1, true, Buffer.alloc(16), 0, 16)?.block.length).toBe(32);
    const over = new HeaderBlockAssembler(limits);
    over.begin(1, false, Buffer.alloc(16), 0, 16);
    const error = connectionError(() => over.continue(1, true, Buffer.alloc(17), 0, 17));
    expect([error.code, error.message]).toEqual([ErrorCode.enhanceYourCalm, 'a header block of more than 32 bytes']);
  });
});
