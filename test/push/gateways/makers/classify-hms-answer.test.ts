import { describe, expect, it } from 'vitest';
import { classifyHmsAnswer, illegalTokens, readHmsAnswer } from '../../../../src/push/gateways/makers/hms/classify-hms-answer.ts';
import { reasonsBySource } from '../../../../src/push/gateways/delivery-reasons.ts';
import type { BatchVerdict } from '../../../../src/push/gateways/makers/maker.ts';

const tokens = ['t1', 't2', 't3'];

function answer(status: number, body: unknown, retryAfterMs?: number) {
  return readHmsAnswer(status, Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)), retryAfterMs);
}

/** Each token's outcome under a verdict of kind `tokens`. */
function perToken(verdict: BatchVerdict, of: readonly string[] = tokens) {
  if (verdict.kind !== 'tokens') throw new Error(`expected a verdict per token, got ${verdict.kind}`);
  return Object.fromEntries(of.map((token) => [token, verdict.outcomes?.get(token) ?? verdict.others]));
}

describe('classifyHmsAnswer', () => {
  it('delivers every token on 80000000', () => {
    expect(perToken(classifyHmsAnswer(answer(200, { code: '80000000', msg: 'Success', requestId: 'r' }), tokens, false))).toEqual({
      t1: { kind: 'delivered' },
      t2: { kind: 'delivered' },
      t3: { kind: 'delivered' },
    });
  });

  it('removes the tokens a partial success lists as illegal and delivers the others, in either form of the list', () => {
    const v1 = answer(200, { code: '80100000', msg: JSON.stringify({ success: 2, failure: 1, illegal_tokens: ['t2'] }) });
    const newer = answer(200, { code: '80100000', msg: JSON.stringify({ success: 1, failure: 2, illegalTokens: { tokenFormatError: ['t1'], noRight: ['t3'] } }) });
    const illegal = { kind: 'invalid-token', reason: 'HmsIllegalToken', unregistered: true };
    expect(perToken(classifyHmsAnswer(v1, tokens, false))).toEqual({ t1: { kind: 'delivered' }, t2: illegal, t3: { kind: 'delivered' } });
    expect(perToken(classifyHmsAnswer(newer, tokens, false))).toEqual({ t1: illegal, t2: { kind: 'delivered' }, t3: illegal });
  });

  it('fails every token of a partial success whose list cannot be read, rather than guess', () => {
    expect(perToken(classifyHmsAnswer(answer(200, { code: '80100000', msg: 'not json' }), tokens, true)).t1).toEqual({ kind: 'failed', reason: 'Hms80100000' });
  });

  it('removes the installation on 80300007 only for a request of that one token, through a profile that delivered before', () => {
    const allInvalid = answer(400, { code: '80300007', msg: 'All the tokens are invalid' });
    expect(perToken(classifyHmsAnswer(allInvalid, ['t1'], true), ['t1']).t1).toEqual({ kind: 'invalid-token', reason: 'Hms80300007', unregistered: true });
    // Another app's credentials answer 80300007 for every device: nothing is removed on their word.
    expect(perToken(classifyHmsAnswer(allInvalid, ['t1'], false), ['t1']).t1).toEqual({ kind: 'invalid-token', reason: 'Hms80300007', unregistered: false });
    expect(perToken(classifyHmsAnswer(allInvalid, tokens, true)).t2).toEqual({ kind: 'invalid-token', reason: 'Hms80300007', unregistered: false });
  });

  it('asks for a new access token on 80200001, 80200003 and a bare 401', () => {
    expect(classifyHmsAnswer(answer(401, { code: '80200003', msg: 'Oauth Token expired.' }), tokens, true)).toEqual({
      kind: 'auth-rejected',
      outcome: { kind: 'failed', reason: 'Hms80200003' },
    });
    expect(classifyHmsAnswer(answer(401, { code: '80200001' }), tokens, true)).toMatchObject({ kind: 'auth-rejected', outcome: { reason: 'Hms80200001' } });
    expect(classifyHmsAnswer(answer(401, ''), tokens, true)).toMatchObject({ kind: 'auth-rejected', outcome: { reason: 'HmsUnauthorized' } });
  });

  it.each([
    [503, {}, 'HmsFlowControl'],
    [429, '', 'HmsFlowControl'],
    [502, 'Bad gateway', 'HmsServerError'],
    [500, { code: '81000001', msg: 'System inner error' }, 'Hms81000001'],
    [200, { code: '80600003' }, 'Hms80600003'],
    [200, { code: '80100017' }, 'Hms80100017'],
  ])('retries status %i with %j as %s', (status, body, reason) => {
    expect(perToken(classifyHmsAnswer(answer(status, body, 3000), tokens, true)).t1).toEqual({ kind: 'retry', reason, retryAfterMs: 3000 });
  });

  it.each(['80100001', '80100002', '80100003', '80100004', '80100013', '80100016', '80100018', '80300002', '80300008', '80300010', '80300011', '80300013'])(
    'fails every token on %s without resending',
    (code) => {
      expect(perToken(classifyHmsAnswer(answer(400, { code }), tokens, true)).t3).toEqual({ kind: 'failed', reason: `Hms${code}` });
    },
  );

  it('counts a code outside the documented ones as Other, judged by the status', () => {
    expect(perToken(classifyHmsAnswer(answer(400, { code: '80999999' }), tokens, true)).t1).toEqual({ kind: 'failed', reason: 'Other' });
    expect(perToken(classifyHmsAnswer(answer(503, { code: '80999999' }), tokens, true)).t1).toEqual({ kind: 'retry', reason: 'Other' });
  });

  it('fails a 200 it cannot read rather than count it delivered or send it again', () => {
    expect(perToken(classifyHmsAnswer(answer(200, '<html>'), tokens, true)).t1).toEqual({ kind: 'failed', reason: 'Other' });
  });

  it('reads a numeric code as its digits', () => {
    expect(readHmsAnswer(200, Buffer.from('{"code":80000000}')).code).toBe('80000000');
  });

  it('names only documented reasons', () => {
    const words = new Set<string>([...reasonsBySource.hms, 'Other']);
    const verdicts = [
      classifyHmsAnswer(answer(200, { code: '80100000', msg: '{"illegal_tokens":["t1"]}' }), tokens, true),
      ...['80100001', '80200001', '80300007', '81000001', '1'].map((code) => classifyHmsAnswer(answer(400, { code }), tokens, true)),
      ...[401, 429, 500, 503].map((status) => classifyHmsAnswer(answer(status, ''), tokens, true)),
    ];
    for (const verdict of verdicts) {
      const outcomes = verdict.kind === 'tokens' ? [verdict.others, ...(verdict.outcomes?.values() ?? [])] : verdict.kind === 'auth-rejected' ? [verdict.outcome] : [];
      for (const outcome of outcomes) if (outcome.kind !== 'delivered') expect(words).toContain(outcome.reason);
    }
  });
});

describe('illegalTokens', () => {
  it('answers nothing for a message that lists none', () => {
    expect(illegalTokens(undefined)).toBeUndefined();
    expect(illegalTokens('{"success":1}')).toBeUndefined();
    expect(illegalTokens('null')).toBeUndefined();
    expect(illegalTokens('{"illegal_tokens":[1,"t",null]}')).toEqual(new Set(['t']));
  });
});

describe('HMS answers at the edges of their shape', () => {
  it('reads a body that is JSON but not an object as no code, judged by the status', () => {
    for (const body of ['null', '5', '"text"', 'true']) expect(readHmsAnswer(200, Buffer.from(body))).toEqual({ status: 200, code: undefined, msg: undefined, retryAfterMs: undefined });
    expect(perToken(classifyHmsAnswer(answer(503, 'null'), tokens, true)).t1).toStrictEqual({ kind: 'retry', reason: 'HmsFlowControl' });
  });

  it('keeps msg only when it is text', () => {
    expect(readHmsAnswer(200, Buffer.from(JSON.stringify({ code: '80100000', msg: { illegal_tokens: ['t1'] } }))).msg).toBeUndefined();
    expect(readHmsAnswer(200, Buffer.from(JSON.stringify({ code: '80100000', msg: 7 }))).msg).toBeUndefined();
  });

  it('names a 401 or a 5xx with a code Huawei does not document Other, and a bare 500 HmsServerError', () => {
    expect(classifyHmsAnswer(answer(401, { code: '80999999' }), tokens, true)).toStrictEqual({ kind: 'auth-rejected', outcome: { kind: 'failed', reason: 'Other' } });
    expect(classifyHmsAnswer(answer(401, ''), tokens, true)).toStrictEqual({ kind: 'auth-rejected', outcome: { kind: 'failed', reason: 'HmsUnauthorized' } });
    expect(perToken(classifyHmsAnswer(answer(500, { code: '80999999' }), tokens, true)).t1).toStrictEqual({ kind: 'retry', reason: 'Other' });
    expect(perToken(classifyHmsAnswer(answer(500, ''), tokens, true)).t1).toStrictEqual({ kind: 'retry', reason: 'HmsServerError' });
    expect(perToken(classifyHmsAnswer(answer(499, ''), tokens, true)).t1).toStrictEqual({ kind: 'failed', reason: 'Other' });
  });

  it('takes only lists of text from illegalTokens, and none from a null one', () => {
    expect(illegalTokens('{"illegalTokens":null}')).toBeUndefined();
    expect(illegalTokens('{"illegalTokens":{"tokenFormatError":"t1","noRight":["t2"]}}')).toEqual(new Set(['t2']));
  });
});
