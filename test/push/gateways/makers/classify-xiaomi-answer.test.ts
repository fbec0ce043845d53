import { describe, expect, it } from 'vitest';
import { reasonsBySource } from '../../../../src/push/gateways/delivery-reasons.ts';
import type { BatchVerdict } from '../../../../src/push/gateways/makers/maker.ts';
import { badRegIds, classifyXiaomiAnswer, readXiaomiAnswer } from '../../../../src/push/gateways/makers/xiaomi/classify-xiaomi-answer.ts';

const regIds = ['r1', 'r2', 'r3'];

function answer(status: number, body: unknown, retryAfterMs?: number) {
  return readXiaomiAnswer(status, Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)), retryAfterMs);
}

/** Each regId's outcome under a verdict of kind `tokens`. */
function perToken(verdict: BatchVerdict, of: readonly string[] = regIds) {
  if (verdict.kind !== 'tokens') throw new Error(`expected a verdict per token, got ${verdict.kind}`);
  return Object.fromEntries(of.map((regId) => [regId, verdict.outcomes?.get(regId) ?? verdict.others]));
}

/** Xiaomi's success answer, as its documentation and server SDK show it. */
function success(data: Record<string, unknown> = {}) {
  return { result: 'ok', trace_id: 'Xcm56b45e1412345678', code: 0, data: { id: 'scm01b45e1412345678', ...data }, description: '成功', info: 'Received push messages for 3 REGID' };
}

function error(code: number | string, reason = 'reason') {
  return { result: 'error', code, reason, description: reason, trace_id: 'Xcm56b45e1412345678' };
}

const ok = { kind: 'delivered' };
const bad = (unregistered: boolean) => ({ kind: 'invalid-token', reason: 'MiBadRegId', unregistered });

describe('classifyXiaomiAnswer', () => {
  it('delivers every regId on code 0', () => {
    expect(perToken(classifyXiaomiAnswer(answer(200, success()), regIds, false))).toEqual({ r1: ok, r2: ok, r3: ok });
    expect(perToken(classifyXiaomiAnswer(answer(200, { code: '0', result: 'ok' }), regIds, false)).r1).toEqual(ok);
  });

  it('removes the regIds data.bad_regids lists and delivers the others', () => {
    expect(perToken(classifyXiaomiAnswer(answer(200, success({ bad_regids: 'r2' })), regIds, false))).toEqual({ r1: ok, r2: bad(true), r3: ok });
    // The spelling some clients read, and a list.
    expect(perToken(classifyXiaomiAnswer(answer(200, success({ bad_regIds: 'r1,r3' })), regIds, false))).toEqual({ r1: bad(true), r2: ok, r3: bad(true) });
    expect(perToken(classifyXiaomiAnswer(answer(200, success({ bad_regids: ['r3'] })), regIds, false)).r3).toEqual(bad(true));
  });

  it('keeps the installations when bad_regids names every regId of a profile that has not delivered, and removes them once it has', () => {
    const allBad = answer(200, success({ bad_regids: 'r1,r2,r3' }));
    expect(perToken(classifyXiaomiAnswer(allBad, regIds, false))).toEqual({ r1: bad(false), r2: bad(false), r3: bad(false) });
    expect(perToken(classifyXiaomiAnswer(allBad, regIds, true)).r2).toEqual(bad(true));
  });

  it('ignores a listed regId the request did not carry', () => {
    expect(perToken(classifyXiaomiAnswer(answer(200, success({ bad_regids: 'elsewhere,,' })), regIds, false))).toEqual({ r1: ok, r2: ok, r3: ok });
  });

  it('removes the installation on 20301 only for a request of that one regId, through a profile that delivered before', () => {
    const failed = answer(200, error(20301, 'No valid targets!'));
    expect(perToken(classifyXiaomiAnswer(failed, ['r1'], true), ['r1']).r1).toEqual({ kind: 'invalid-token', reason: 'Mi20301', unregistered: true });
    // Another app's secret, or a package that is not the devices', fails every regId: nothing is removed on that word.
    expect(perToken(classifyXiaomiAnswer(failed, ['r1'], false), ['r1']).r1).toEqual({ kind: 'invalid-token', reason: 'Mi20301', unregistered: false });
    expect(perToken(classifyXiaomiAnswer(failed, regIds, true)).r2).toEqual({ kind: 'invalid-token', reason: 'Mi20301', unregistered: false });
    expect(perToken(classifyXiaomiAnswer(answer(200, error(10029)), ['r1'], true), ['r1']).r1).toEqual({ kind: 'invalid-token', reason: 'Mi10029', unregistered: false });
  });

  it.each([10034, 200001, '10034'])('reads %s as the day\'s quota spent', (code) => {
    expect(classifyXiaomiAnswer(answer(200, error(code, '应用当日发送消息数量过多')), regIds, true)).toEqual({ kind: 'quota-exhausted', word: `Mi${code}` });
  });

  it.each([
    [200, error(10027, '应用的API调用太频繁'), 'Mi10027'],
    [200, error(10022), 'Mi10022'],
    [200, error(10023), 'Mi10023'],
    [200, error(10024), 'Mi10024'],
    [200, error(10001, '系统错误'), 'Mi10001'],
    [200, error(10002, '系统繁忙'), 'Mi10002'],
    [200, error(10003, '远程服务错误'), 'Mi10003'],
    [200, error(10037, '请求过期'), 'Mi10037'],
    [200, error(20607, 'DB错误'), 'Mi20607'],
    [200, error(26003), 'Mi26003'],
    [200, error(1, '内部错误'), 'Mi1'],
    [503, '', 'MiServerError'],
    [502, '<html>Bad gateway</html>', 'MiServerError'],
    [429, '', 'MiTooManyRequests'],
  ])('retries status %i with %j as %s', (status, body, reason) => {
    expect(perToken(classifyXiaomiAnswer(answer(status, body, 3000), regIds, true)).r1).toEqual({ kind: 'retry', reason, retryAfterMs: 3000 });
    expect(perToken(classifyXiaomiAnswer(answer(status, body), regIds, true)).r3).toEqual({ kind: 'retry', reason });
  });

  it.each([10008, 10012, 10016, 10017, 10031, 10036, 21301, 21302, 21303, 21305, 22000, 22006, 22007, 22022, 22102, 27001, 65009, 65014, 65015])(
    'fails every regId on %i without resending or removing',
    (code) => {
      expect(perToken(classifyXiaomiAnswer(answer(200, error(code)), ['r1'], true), ['r1']).r1).toEqual({ kind: 'failed', reason: `Mi${code}` });
    },
  );

  it('fails every device of a wrong AppSecret (21301), and removes none, even for one regId of a profile that delivered', () => {
    expect(classifyXiaomiAnswer(answer(200, error(21301, 'Authentication failed')), ['r1'], true)).toEqual({ kind: 'tokens', others: { kind: 'failed', reason: 'Mi21301' } });
    expect(perToken(classifyXiaomiAnswer(answer(401, ''), regIds, true)).r1).toEqual({ kind: 'failed', reason: 'MiUnauthorized' });
    expect(perToken(classifyXiaomiAnswer(answer(403, 'forbidden'), regIds, true)).r1).toEqual({ kind: 'failed', reason: 'MiUnauthorized' });
  });

  it('counts a code outside the documented ones as Other, judged by the status', () => {
    expect(perToken(classifyXiaomiAnswer(answer(200, error(99999)), regIds, true)).r1).toEqual({ kind: 'failed', reason: 'Other' });
    expect(perToken(classifyXiaomiAnswer(answer(503, error(99999)), regIds, true)).r1).toEqual({ kind: 'retry', reason: 'Other' });
    expect(perToken(classifyXiaomiAnswer(answer(429, error(99999)), regIds, true)).r1).toEqual({ kind: 'retry', reason: 'Other' });
    expect(perToken(classifyXiaomiAnswer(answer(401, error(99999)), regIds, true)).r1).toEqual({ kind: 'failed', reason: 'Other' });
  });

  it('fails a 200 it cannot read rather than count it delivered or send it again', () => {
    expect(perToken(classifyXiaomiAnswer(answer(200, '<html>'), regIds, true)).r1).toEqual({ kind: 'failed', reason: 'Other' });
    expect(perToken(classifyXiaomiAnswer(answer(200, ''), regIds, true)).r1).toEqual({ kind: 'failed', reason: 'Other' });
    expect(perToken(classifyXiaomiAnswer(answer(200, { code: 'zero' }), regIds, true)).r1).toEqual({ kind: 'failed', reason: 'Other' });
  });

  it('names only documented reasons', () => {
    const words = new Set<string>([...reasonsBySource.xiaomi, 'Other']);
    const verdicts = [
      classifyXiaomiAnswer(answer(200, success({ bad_regids: 'r1' })), regIds, true),
      ...[1, 10027, 20301, 10029, 21301, 65009, 27001, 77777].map((code) => classifyXiaomiAnswer(answer(200, error(code)), regIds, true)),
      ...[401, 429, 500, 503].map((status) => classifyXiaomiAnswer(answer(status, ''), regIds, true)),
    ];
    for (const verdict of verdicts) {
      const outcomes = verdict.kind === 'tokens' ? [verdict.others, ...(verdict.outcomes?.values() ?? [])] : verdict.kind === 'auth-rejected' ? [verdict.outcome] : [];
      for (const outcome of outcomes) if (outcome.kind !== 'delivered') expect(words).toContain(outcome.reason);
    }
  });
});

describe('badRegIds', () => {
  it('reads the comma-separated string Xiaomi sends, a list, or nothing', () => {
    expect(badRegIds({ bad_regids: 'a, b,,c' })).toEqual(new Set(['a', 'b', 'c']));
    expect(badRegIds({ bad_regids: ['a', 1, null, ''] })).toEqual(new Set(['a']));
    expect(badRegIds({ id: 'scm1' })).toBeUndefined();
    expect(badRegIds('r1')).toBeUndefined();
    expect(badRegIds(null)).toBeUndefined();
  });

  it('reads a numeric code given as text or number, and nothing else as one', () => {
    expect(readXiaomiAnswer(200, Buffer.from('{"code":"20301"}')).code).toBe('20301');
    expect(readXiaomiAnswer(200, Buffer.from('{"code":0}')).code).toBe('0');
    expect(readXiaomiAnswer(200, Buffer.from('{"code":1.5}')).code).toBeUndefined();
    expect(readXiaomiAnswer(200, Buffer.from('[0]')).code).toBeUndefined();
  });
});

describe('Mi Push answers at the edges of their shape', () => {
  it('reads a body that is JSON but not an object as no code, judged by the status', () => {
    for (const body of ['null', '5', '"text"']) expect(readXiaomiAnswer(503, Buffer.from(body)).code).toBeUndefined();
    expect(perToken(classifyXiaomiAnswer(answer(503, 'null'), regIds, true)).r1).toStrictEqual({ kind: 'retry', reason: 'MiServerError' });
  });

  it.each([['abc'], ['5x'], ['x5'], [[0]], [true], [1.5]])('reads a code of %j as none', (code) => {
    expect(readXiaomiAnswer(200, Buffer.from(JSON.stringify({ code }))).code).toBeUndefined();
  });

  it('names a bare 500 MiServerError', () => {
    expect(perToken(classifyXiaomiAnswer(answer(500, ''), regIds, true)).r1).toStrictEqual({ kind: 'retry', reason: 'MiServerError' });
    expect(perToken(classifyXiaomiAnswer(answer(499, ''), regIds, true)).r1).toStrictEqual({ kind: 'failed', reason: 'Other' });
  });
});
