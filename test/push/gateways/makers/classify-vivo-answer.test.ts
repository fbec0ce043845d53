import { describe, expect, it } from 'vitest';
import { reasonsBySource } from '../../../../src/push/gateways/delivery-reasons.ts';
import type { BatchVerdict } from '../../../../src/push/gateways/makers/maker.ts';
import { classifyVivoAnswer, readVivoAnswer } from '../../../../src/push/gateways/makers/vivo/classify-vivo-answer.ts';

const tokens = ['r1', 'r2', 'r3'];

function answer(status: number, body: unknown, retryAfterMs?: number) {
  return readVivoAnswer(status, Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)), retryAfterMs);
}

function classify(status: number, body: unknown, of: readonly string[] = tokens, proven = true, retryAfterMs?: number): BatchVerdict {
  return classifyVivoAnswer(answer(status, body, retryAfterMs), of, proven).verdict;
}

/** Each token's outcome under a verdict of kind `tokens`. */
function perToken(verdict: BatchVerdict, of: readonly string[] = tokens) {
  if (verdict.kind !== 'tokens') throw new Error(`expected a verdict per token, got ${verdict.kind}`);
  return Object.fromEntries(of.map((token) => [token, verdict.outcomes?.get(token) ?? verdict.others]));
}

const delivered = { kind: 'delivered' };
const success = { result: 0, desc: '请求成功', taskId: '583741259485937664' };

describe('classifyVivoAnswer', () => {
  it('delivers every regId of a success that lists no invalid user', () => {
    expect(perToken(classify(200, success))).toEqual({ r1: delivered, r2: delivered, r3: delivered });
  });

  it('ends each regId a list send\'s invalidUsers names by its status, and delivers the others', () => {
    const body = { ...success, invalidUsers: [{ status: 2, userid: 'r1' }, { status: 3, userid: 'r2' }] };
    expect(perToken(classify(200, body, tokens, false))).toEqual({
      r1: { kind: 'invalid-token', reason: 'VivoUninstalled', unregistered: true },
      r2: { kind: 'invalid-token', reason: 'VivoInactive', unregistered: false },
      r3: delivered,
    });
  });

  it('removes a regId vivo says does not exist (status 1) beside a delivered one, or through a profile that delivered before, and keeps it otherwise', () => {
    const beside = { ...success, invalidUsers: [{ status: 1, userid: 'r1' }] };
    expect(perToken(classify(200, beside, tokens, false)).r1).toEqual({ kind: 'invalid-token', reason: 'VivoUserNotFound', unregistered: true });
    const single = { ...success, invalidUser: { status: 1, userid: 'r1' } };
    expect(perToken(classify(200, single, ['r1'], true), ['r1']).r1).toMatchObject({ reason: 'VivoUserNotFound', unregistered: true });
    // Another app's credentials find none of the regIds: nothing is removed on their word.
    expect(perToken(classify(200, single, ['r1'], false), ['r1']).r1).toMatchObject({ reason: 'VivoUserNotFound', unregistered: false });
    const all = { ...success, invalidUsers: tokens.map((userid) => ({ status: 1, userid })) };
    expect(perToken(classify(200, all, tokens, false)).r2).toMatchObject({ unregistered: false });
  });

  it('fails a regId that is not a test device of a test push (status 4), and one of a status vivo does not document as Other', () => {
    const reading = classifyVivoAnswer(answer(200, { ...success, invalidUsers: [{ status: 4, userid: 'r1' }, { status: '7', userid: 'r2' }] }), tokens, true);
    expect(perToken(reading.verdict)).toEqual({ r1: { kind: 'failed', reason: 'VivoNotTestDevice' }, r2: { kind: 'failed', reason: 'Other' }, r3: delivered });
    expect(reading.unknownWord).toBe('status 7');
  });

  it('reads a regId vivo sends as a number', () => {
    expect(perToken(classify(200, { ...success, invalidUser: { status: 2, userid: 12345 } }, ['12345']), ['12345'])['12345']).toMatchObject({ reason: 'VivoUninstalled' });
  });

  it('asks for a new authToken on 10000', () => {
    expect(classify(200, { result: 10000, desc: '权限认证失败' })).toEqual({ kind: 'auth-rejected', outcome: { kind: 'failed', reason: 'Vivo10000' } });
  });

  it.each([10070, 10073, 10252])('spends the profile\'s quota for the day on %i', (result) => {
    expect(classify(200, { result, desc: '发送总量超出限制' })).toEqual({ kind: 'quota-exhausted', word: `Vivo${result}` });
  });

  it.each([
    [200, { result: 10072, desc: '推送速度过快' }, 'Vivo10072'],
    [500, 'Internet server error!', 'VivoServerError'],
    [429, '', 'VivoServerError'],
  ])('retries status %i with %j as %s', (status, body, reason) => {
    expect(perToken(classify(status, body, tokens, true, 2000)).r1).toEqual({ kind: 'retry', reason, retryAfterMs: 2000 });
    expect(perToken(classify(status, body)).r3).toEqual({ kind: 'retry', reason });
  });

  it('counts 10302 (an invalid regId) invalid, removed only for a lone regId through a profile that delivered before', () => {
    expect(perToken(classify(200, { result: 10302 }, ['r1'], true), ['r1']).r1).toEqual({ kind: 'invalid-token', reason: 'Vivo10302', unregistered: true });
    expect(perToken(classify(200, { result: 10302 }, ['r1'], false), ['r1']).r1).toMatchObject({ unregistered: false });
    expect(perToken(classify(200, { result: 10302 }, tokens, true)).r1).toMatchObject({ unregistered: false });
  });

  it('counts 10311 (a device that cannot be pushed to now) invalid and keeps it', () => {
    expect(perToken(classify(200, { result: 10311 }, ['r1'], true), ['r1']).r1).toEqual({ kind: 'invalid-token', reason: 'Vivo10311', unregistered: false });
  });

  it.each([10050, 10054, 10055, 10056, 10057, 10058, 10059, 10060, 10065, 10067, 10071, 10094, 10096, 10097, 10103, 10104, 10150, 10152, 10153, 10155, 10206, 10352, 10353, 11000])(
    'fails every regId on %i without resending',
    (result) => {
      expect(perToken(classify(200, { result, desc: 'xxx不合法' })).r2).toEqual({ kind: 'failed', reason: `Vivo${result}` });
    },
  );

  it('counts a result outside the documented ones as Other, judged by the status, and names it to log', () => {
    const failed = classifyVivoAnswer(answer(200, { result: 19999 }), tokens, true);
    expect(perToken(failed.verdict).r1).toEqual({ kind: 'failed', reason: 'Other' });
    expect(failed.unknownWord).toBe('19999');
    expect(perToken(classify(502, { result: 19999 })).r1).toEqual({ kind: 'retry', reason: 'Other' });
  });

  it('fails an answer it cannot read rather than count it delivered or send it again', () => {
    expect(perToken(classify(200, '<html>')).r1).toEqual({ kind: 'failed', reason: 'Other' });
  });

  it('reads a result and a taskId sent as text or numbers', () => {
    expect(readVivoAnswer(200, Buffer.from('{"result":"10070"}')).result).toBe('10070');
    expect(readVivoAnswer(200, Buffer.from('{"result":0,"taskId":123}')).taskId).toBe('123');
    expect(readVivoAnswer(200, Buffer.from('{"result":"x"}')).result).toBeUndefined();
  });

  it('names only documented reasons', () => {
    const words = new Set<string>([...reasonsBySource.vivo, 'Other']);
    const verdicts = [
      classify(200, { ...success, invalidUsers: [1, 2, 3, 4, 5].map((status, n) => ({ status, userid: `r${n}` })) }),
      ...[0, 10000, 10070, 10072, 10302, 10311, 10054, 19999].map((result) => classify(200, { result })),
      ...[401, 429, 500, 503].map((status) => classify(status, '')),
    ];
    for (const verdict of verdicts) {
      const outcomes = verdict.kind === 'tokens' ? [verdict.others, ...(verdict.outcomes?.values() ?? [])] : verdict.kind === 'auth-rejected' ? [verdict.outcome] : [];
      for (const outcome of outcomes) if (outcome.kind !== 'delivered') expect(words).toContain(outcome.reason);
    }
  });
});

describe('vivo answers at the edges of their shape', () => {
  it.each([10043, 10045, 10051, 10061, 10062, 10063, 10064, 10066, 10068, 10069, 10095, 10151, 10200, 10201, 10202, 10203, 10204, 10205, 10207, 10304, 10305, 10306])(
    'fails every regId on %i, a documented code, with its own reason',
    (result) => {
      expect(perToken(classify(200, { result })).r1).toStrictEqual({ kind: 'failed', reason: `Vivo${result}` });
    },
  );

  it('reads a body that is JSON but not an object as no result, judged by the status', () => {
    for (const body of ['null', '5', '"text"']) expect(readVivoAnswer(503, Buffer.from(body))).toMatchObject({ result: undefined, taskId: undefined });
    expect(perToken(classify(503, 'null')).r1).toStrictEqual({ kind: 'retry', reason: 'VivoServerError' });
  });

  it.each([[1.5], [[0]], ['x5'], ['5x'], ['-5'], [true]])('reads a result of %j as none', (result) => {
    expect(readVivoAnswer(200, Buffer.from(JSON.stringify({ result }))).result).toBeUndefined();
  });

  it('reads the invalid users of result 0 only from a 200, and names a bare 500 VivoServerError', () => {
    const listed = { result: 0, invalidUsers: [{ userid: 'r1', status: 2 }] };
    expect(perToken(classify(500, listed)).r1).toStrictEqual({ kind: 'retry', reason: 'Other' });
    expect(perToken(classify(500, '')).r1).toStrictEqual({ kind: 'retry', reason: 'VivoServerError' });
    expect(perToken(classify(499, '')).r1).toStrictEqual({ kind: 'failed', reason: 'Other' });
  });

  it('takes invalid users with a regId and a whole status only, from invalidUsers when it is a list and invalidUser otherwise', () => {
    const read = readVivoAnswer(
      200,
      Buffer.from(JSON.stringify({ result: 0, invalidUsers: [null, 5, { userid: 'r1', status: '2' }, { userid: 'r2', status: 'x' }, { userid: true, status: 1 }, { status: 1 }, { userid: 9, status: 3.5 }] })),
    );
    expect([...read.invalidUsers]).toEqual([['r1', 2]]);
    expect([...answer(200, { result: 0, invalidUser: { userid: 'r3', status: 1 }, invalidUsers: 'r1' }).invalidUsers]).toEqual([['r3', 1]]);
  });

  it('reads a taskId of text or a number only', () => {
    expect(answer(200, { result: 0, taskId: { id: 1 } }).taskId).toBeUndefined();
    expect(answer(200, { result: 0, taskId: 583741259485 }).taskId).toBe('583741259485');
  });

  it('names the status vivo does not document to log', () => {
    const reading = classifyVivoAnswer(answer(200, { result: 0, invalidUsers: [{ userid: 'r1', status: 9 }, { userid: 'r2', status: 7 }] }), tokens, true);
    expect(reading.unknownWord).toBe('status 9');
    expect(perToken(reading.verdict)).toStrictEqual({ r1: { kind: 'failed', reason: 'Other' }, r2: { kind: 'failed', reason: 'Other' }, r3: { kind: 'delivered' } });
  });
});
