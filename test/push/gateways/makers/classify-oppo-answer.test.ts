import { describe, expect, it } from 'vitest';
import { reasonsBySource } from '../../../../src/push/gateways/delivery-reasons.ts';
import { classifyOppoAnswer, readOppoAnswer } from '../../../../src/push/gateways/makers/oppo/classify-oppo-answer.ts';
import type { BatchVerdict } from '../../../../src/push/gateways/makers/maker.ts';

const tokens = ['t1', 't2', 't3'];

function answer(status: number, body: unknown, retryAfterMs?: number) {
  return readOppoAnswer(status, Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)), retryAfterMs);
}

function classify(status: number, body: unknown, of: readonly string[] = tokens, proven = true, retryAfterMs?: number): BatchVerdict {
  return classifyOppoAnswer(answer(status, body, retryAfterMs), of, proven).verdict;
}

/** Each token's outcome under a verdict of kind `tokens`. */
function perToken(verdict: BatchVerdict, of: readonly string[] = tokens) {
  if (verdict.kind !== 'tokens') throw new Error(`expected a verdict per token, got ${verdict.kind}`);
  return Object.fromEntries(of.map((token) => [token, verdict.outcomes?.get(token) ?? verdict.others]));
}

/** OPPO's documented batch answer: a messageId per message, errorCode and errorMessage for those that failed. */
function batchAnswer(items: { registrationId: string; errorCode?: number }[]) {
  return { code: 0, message: '', data: items.map((item) => ({ messageId: `id-${item.registrationId}`, ...item, ...(item.errorCode === undefined ? {} : { errorMessage: 'Invalid Registration_id' }) })) };
}

const delivered = { kind: 'delivered' };

describe('classifyOppoAnswer', () => {
  it('delivers every message OPPO answered with a messageId and no errorCode', () => {
    expect(perToken(classify(200, batchAnswer(tokens.map((registrationId) => ({ registrationId })))))).toEqual({ t1: delivered, t2: delivered, t3: delivered });
  });

  it('removes the registration ids answered errorCode 10000 beside delivered ones, even through a profile that never delivered', () => {
    const verdict = classify(200, batchAnswer([{ registrationId: 't1' }, { registrationId: 't2', errorCode: 10000 }, { registrationId: 't3' }]), tokens, false);
    expect(perToken(verdict)).toEqual({ t1: delivered, t2: { kind: 'invalid-token', reason: 'OppoInvalidRegistrationId', unregistered: true }, t3: delivered });
  });

  it('keeps the installations when every message is refused 10000 through a profile that never delivered, as another app\'s AppKey would make them', () => {
    const all = batchAnswer(tokens.map((registrationId) => ({ registrationId, errorCode: 10000 })));
    expect(perToken(classify(200, all, tokens, false)).t1).toEqual({ kind: 'invalid-token', reason: 'OppoInvalidRegistrationId', unregistered: false });
    expect(perToken(classify(200, all, tokens, true)).t1).toEqual({ kind: 'invalid-token', reason: 'OppoInvalidRegistrationId', unregistered: true });
  });

  it('reads an errorCode sent as text, and an errorCode of 0 as none', () => {
    const body = { code: 0, data: [{ registrationId: 't1', errorCode: '10000' }, { registrationId: 't2', errorCode: 0 }, { registrationId: 't3' }] };
    expect(perToken(classify(200, body, tokens, true))).toMatchObject({ t1: { kind: 'invalid-token' }, t2: delivered, t3: delivered });
  });

  it('fails a message with another errorCode as Other and names the code to log', () => {
    const reading = classifyOppoAnswer(answer(200, batchAnswer([{ registrationId: 't1', errorCode: 10099 }, { registrationId: 't2' }, { registrationId: 't3' }])), tokens, true);
    expect(perToken(reading.verdict).t1).toEqual({ kind: 'failed', reason: 'Other' });
    expect(reading.unknownWord).toBe('10099');
  });

  it('fails a token the answer does not list as OppoNoResult, rather than send it again', () => {
    expect(perToken(classify(200, batchAnswer([{ registrationId: 't1' }]))).t2).toEqual({ kind: 'failed', reason: 'OppoNoResult' });
  });

  it('removes the one registration id of a request OPPO answers 10000 as a whole only through a profile that delivered before', () => {
    expect(perToken(classify(200, { code: 10000, message: 'Invalid Registration_id' }, ['t1'], true), ['t1']).t1).toMatchObject({ unregistered: true });
    expect(perToken(classify(200, { code: 10000 }, ['t1'], false), ['t1']).t1).toMatchObject({ unregistered: false });
    expect(perToken(classify(200, { code: 10000 }, tokens, true)).t1).toMatchObject({ unregistered: false });
  });

  it.each([11, 29])('asks for a new auth token on %i', (code) => {
    expect(classify(200, { code, message: 'Invalid AuthToken' })).toEqual({ kind: 'auth-rejected', outcome: { kind: 'failed', reason: `Oppo${code}` } });
  });

  it.each([
    [200, { code: -1, message: 'Service Currently Unavailable' }, 'OppoServiceUnavailable'],
    [200, { code: -2, message: 'Service in Flow Control' }, 'OppoFlowControl'],
    [200, { code: 13, message: 'App Call Limited' }, 'Oppo13'],
    [200, { code: 55, message: 'App Call Frequency Limit' }, 'Oppo55'],
    [502, 'Bad gateway', 'OppoServerError'],
    [429, '', 'OppoServerError'],
  ])('retries status %i with %j as %s', (status, body, reason) => {
    expect(perToken(classify(status, body, tokens, true, 3000)).t1).toEqual({ kind: 'retry', reason, retryAfterMs: 3000 });
    expect(perToken(classify(status, body)).t2).toEqual({ kind: 'retry', reason });
  });

  it('spends the profile\'s quota for the day on code 33', () => {
    expect(classify(200, { code: 33, message: 'The number of messages exceeds the daily limit' })).toEqual({ kind: 'quota-exhausted', word: 'Oppo33' });
  });

  it.each([12, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 30, 31, 32, 34, 40, 41, 51, 59, 67])('fails every message on %i without resending', (code) => {
    expect(perToken(classify(200, { code })).t3).toEqual({ kind: 'failed', reason: `Oppo${code}` });
  });

  it('counts a code outside the documented ones as Other, judged by the status, and names it to log', () => {
    const failed = classifyOppoAnswer(answer(200, { code: 99 }), tokens, true);
    expect(perToken(failed.verdict).t1).toEqual({ kind: 'failed', reason: 'Other' });
    expect(failed.unknownWord).toBe('99');
    expect(perToken(classify(503, { code: 99 })).t1).toEqual({ kind: 'retry', reason: 'Other' });
  });

  it('fails an answer it cannot read rather than count it delivered or send it again', () => {
    expect(perToken(classify(200, '<html>')).t1).toEqual({ kind: 'failed', reason: 'Other' });
    expect(perToken(classify(200, { code: 0, data: 'not a list' })).t1).toEqual({ kind: 'failed', reason: 'Other' });
  });

  it('reads a code sent as text as its number', () => {
    expect(readOppoAnswer(200, Buffer.from('{"code":"-2"}')).code).toBe('-2');
    expect(readOppoAnswer(200, Buffer.from('{"code":"033"}')).code).toBe('33');
    expect(readOppoAnswer(200, Buffer.from('{"code":"x"}')).code).toBeUndefined();
  });

  it('names only documented reasons', () => {
    const words = new Set<string>([...reasonsBySource.oppo, 'Other']);
    const verdicts = [
      classify(200, batchAnswer([{ registrationId: 't1', errorCode: 10000 }, { registrationId: 't2', errorCode: 5 }])),
      ...[-2, -1, 0, 11, 13, 29, 33, 41, 10000, 12345].map((code) => classify(200, { code })),
      ...[401, 429, 500, 503].map((status) => classify(status, '')),
    ];
    for (const verdict of verdicts) {
      const outcomes = verdict.kind === 'tokens' ? [verdict.others, ...(verdict.outcomes?.values() ?? [])] : verdict.kind === 'auth-rejected' ? [verdict.outcome] : [];
      for (const outcome of outcomes) if (outcome.kind !== 'delivered') expect(words).toContain(outcome.reason);
    }
  });
});

describe('OPPO answers at the edges of their shape', () => {
  it('reads a body that is JSON but not an object as no code, judged by the status', () => {
    for (const body of ['null', '5', '"text"']) expect(readOppoAnswer(503, Buffer.from(body)).code).toBeUndefined();
    expect(perToken(classify(503, 'null')).t1).toStrictEqual({ kind: 'retry', reason: 'OppoServerError' });
  });

  it.each([[1.5], [[0]], ['x5'], ['5x'], [true]])('reads a code of %j as none', (code) => {
    expect(readOppoAnswer(200, Buffer.from(JSON.stringify({ code }))).code).toBeUndefined();
  });

  it('reads the messages of code 0 only from a 200, and says a data that is not a list is what it could not read', () => {
    const listed = batchAnswer(tokens.map((registrationId) => ({ registrationId })));
    expect(perToken(classify(500, listed)).t1).toStrictEqual({ kind: 'retry', reason: 'Other' });
    expect(classifyOppoAnswer(answer(200, { code: 0, data: {} }), tokens, true).unknownWord).toBe('data');
  });

  it('names a bare 500 OppoServerError, and a 10000 for the whole request an invalid token', () => {
    expect(perToken(classify(500, '')).t1).toStrictEqual({ kind: 'retry', reason: 'OppoServerError' });
    expect(perToken(classify(499, '')).t1).toStrictEqual({ kind: 'failed', reason: 'Other' });
    expect(perToken(classify(200, { code: 10000 }, ['t1'], true), ['t1']).t1).toStrictEqual({ kind: 'invalid-token', reason: 'OppoInvalidRegistrationId', unregistered: true });
  });

  it('skips entries of data that are not messages with a registration id, and reads a null errorCode as none', () => {
    const read = readOppoAnswer(200, Buffer.from(JSON.stringify({ code: 0, data: [null, 5, 'x', { registrationId: 7 }, { errorCode: 10000 }, { registrationId: 't1', errorCode: null }] })));
    expect([...(read.items ?? new Map()).entries()]).toEqual([['t1', { errorCode: undefined }]]);
    expect(perToken(classifyOppoAnswer(read, ['t1'], true).verdict, ['t1']).t1).toStrictEqual({ kind: 'delivered' });
  });

  it('keeps an errorCode that is not a number as its first 32 characters, and one that is not text as unreadable', () => {
    const long = 'Invalid registration id, see the docs';
    const textual = classifyOppoAnswer(answer(200, { code: 0, data: [{ registrationId: 't1', errorCode: long }, { registrationId: 't2' }] }), ['t1', 't2'], true);
    expect(perToken(textual.verdict, ['t1']).t1).toStrictEqual({ kind: 'failed', reason: 'Other' });
    expect(textual.unknownWord).toBe(long.slice(0, 32));
    const odd = classifyOppoAnswer(answer(200, { code: 0, data: [{ registrationId: 't1', errorCode: { code: 1 } }] }), ['t1'], true);
    expect(perToken(odd.verdict, ['t1']).t1).toStrictEqual({ kind: 'failed', reason: 'Other' });
    expect(odd.unknownWord).toBe('unreadable');
  });
});
