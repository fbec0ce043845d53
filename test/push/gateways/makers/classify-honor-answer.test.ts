import { describe, expect, it } from 'vitest';
import { reasonsBySource } from '../../../../src/push/gateways/delivery-reasons.ts';
import { classifyHonorAnswer, readHonorAnswer } from '../../../../src/push/gateways/makers/honor/classify-honor-answer.ts';
import type { BatchVerdict } from '../../../../src/push/gateways/makers/maker.ts';

const tokens = ['t1', 't2', 't3'];

function answer(status: number, body: unknown, retryAfterMs?: number) {
  return readHonorAnswer(status, Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)), retryAfterMs);
}

/** Honor's success answer (`HonorSendResp` of the public clients) with the given lists. */
function success(data: Record<string, unknown> = {}) {
  return answer(200, { code: 200, message: 'success', data: { sendResult: true, requestId: '1618', failTokens: [], expireTokens: [], ...data } });
}

/** Each token's outcome under a verdict of kind `tokens`. */
function perToken(verdict: BatchVerdict, of: readonly string[] = tokens) {
  if (verdict.kind !== 'tokens') throw new Error(`expected a verdict per token, got ${verdict.kind}`);
  return Object.fromEntries(of.map((token) => [token, verdict.outcomes?.get(token) ?? verdict.others]));
}

const delivered = { kind: 'delivered' };
const expired = { kind: 'invalid-token', reason: 'HonorExpireToken', unregistered: true };

describe('classifyHonorAnswer', () => {
  it('delivers every token of code 200 with empty lists', () => {
    expect(perToken(classifyHonorAnswer(success(), tokens, false))).toEqual({ t1: delivered, t2: delivered, t3: delivered });
  });

  it('removes the tokens listed in expireTokens, fails those in failTokens and delivers the others', () => {
    const verdict = classifyHonorAnswer(success({ expireTokens: ['t1'], failTokens: ['t3'] }), tokens, false);
    expect(perToken(verdict)).toEqual({ t1: expired, t2: delivered, t3: { kind: 'failed', reason: 'HonorFailToken' } });
  });

  it('removes an expired token even alone in its request: Honor names it', () => {
    const verdict = classifyHonorAnswer(answer(200, { code: 200, data: { sendResult: false, expireTokens: ['t1'], failTokens: [] } }), ['t1'], false);
    expect(perToken(verdict, ['t1'])).toEqual({ t1: expired });
  });

  it('fails the unlisted tokens of sendResult false rather than count them delivered', () => {
    expect(perToken(classifyHonorAnswer(success({ sendResult: false, failTokens: ['t2'] }), tokens, true))).toEqual({
      t1: { kind: 'failed', reason: 'HonorSendFailed' },
      t2: { kind: 'failed', reason: 'HonorFailToken' },
      t3: { kind: 'failed', reason: 'HonorSendFailed' },
    });
  });

  it('reads the code as a number or as text', () => {
    expect(readHonorAnswer(200, Buffer.from('{"code":"200","data":{"sendResult":true}}')).code).toBe('200');
    expect(readHonorAnswer(200, Buffer.from('{"code":200}')).code).toBe('200');
  });

  it('removes the installation on 80300007 only for a request of that one token, through a profile that delivered before', () => {
    const allInvalid = answer(400, { code: 80300007, message: 'All the tokens are invalid' });
    expect(perToken(classifyHonorAnswer(allInvalid, ['t1'], true), ['t1']).t1).toEqual({ kind: 'invalid-token', reason: 'Honor80300007', unregistered: true });
    expect(perToken(classifyHonorAnswer(allInvalid, ['t1'], false), ['t1']).t1).toEqual({ kind: 'invalid-token', reason: 'Honor80300007', unregistered: false });
    expect(perToken(classifyHonorAnswer(allInvalid, tokens, true)).t2).toEqual({ kind: 'invalid-token', reason: 'Honor80300007', unregistered: false });
  });

  it.each([
    [401, { code: 80200003, message: 'Oauth Token expired.' }, 'Honor80200003'],
    [401, { code: 80200001 }, 'Honor80200001'],
    [401, '', 'HonorUnauthorized'],
  ])('asks for a new access token on status %i with %j (%s)', (status, body, reason) => {
    expect(classifyHonorAnswer(answer(status, body), tokens, true)).toEqual({ kind: 'auth-rejected', outcome: { kind: 'failed', reason } });
  });

  it.each([
    [503, {}, 'HonorFlowControl'],
    [429, '', 'HonorFlowControl'],
    [502, 'Bad gateway', 'HonorServerError'],
    [500, { code: 81000001, message: 'System inner error' }, 'Honor81000001'],
  ])('retries status %i with %j as %s, after its Retry-After', (status, body, reason) => {
    expect(perToken(classifyHonorAnswer(answer(status, body, 3000), tokens, true)).t1).toEqual({ kind: 'retry', reason, retryAfterMs: 3000 });
  });

  it('fails every token on 80300008 (message too large) without resending', () => {
    expect(perToken(classifyHonorAnswer(answer(400, { code: 80300008 }), tokens, true)).t3).toEqual({ kind: 'failed', reason: 'Honor80300008' });
  });

  it('counts a code outside the ones Herald knows as Other, judged by the status', () => {
    expect(perToken(classifyHonorAnswer(answer(400, { code: 80100003 }), tokens, true)).t1).toEqual({ kind: 'failed', reason: 'Other' });
    expect(perToken(classifyHonorAnswer(answer(503, { code: 99 }), tokens, true)).t1).toEqual({ kind: 'retry', reason: 'Other' });
    expect(classifyHonorAnswer(answer(401, { code: 99 }), tokens, true)).toEqual({ kind: 'auth-rejected', outcome: { kind: 'failed', reason: 'Other' } });
  });

  it('fails a 200 it cannot read rather than count it delivered or send it again', () => {
    expect(perToken(classifyHonorAnswer(answer(200, '<html>'), tokens, true)).t1).toEqual({ kind: 'failed', reason: 'Other' });
    // HMS's success word is not Honor's: it proves nothing about the tokens.
    expect(perToken(classifyHonorAnswer(answer(200, { code: '80000000' }), tokens, true)).t1).toEqual({ kind: 'failed', reason: 'Other' });
  });

  it('ignores list entries that are not strings and tokens it did not send', () => {
    const verdict = classifyHonorAnswer(success({ expireTokens: [1, null, 'elsewhere', 't2'] }), tokens, true);
    expect(perToken(verdict)).toEqual({ t1: delivered, t2: expired, t3: delivered });
  });

  it('names only documented reasons', () => {
    const words = new Set<string>([...reasonsBySource.honor, 'Other']);
    const verdicts = [
      classifyHonorAnswer(success({ expireTokens: ['t1'], failTokens: ['t2'], sendResult: false }), tokens, true),
      ...[80200001, 80200003, 80300007, 80300008, 81000001, 1].map((code) => classifyHonorAnswer(answer(400, { code }), tokens, true)),
      ...[401, 429, 500, 503].map((status) => classifyHonorAnswer(answer(status, ''), tokens, true)),
    ];
    for (const verdict of verdicts) {
      const outcomes = verdict.kind === 'tokens' ? [verdict.others, ...(verdict.outcomes?.values() ?? [])] : verdict.kind === 'auth-rejected' ? [verdict.outcome] : [];
      for (const outcome of outcomes) if (outcome.kind !== 'delivered') expect(words).toContain(outcome.reason);
    }
  });
});

describe('Honor answers at the edges of their shape', () => {
  it('reads a body that is JSON but not an object as no code, judged by the status', () => {
    for (const body of ['null', '5', '"text"']) expect(readHonorAnswer(503, Buffer.from(body)).code).toBeUndefined();
    expect(perToken(classifyHonorAnswer(answer(503, 'null'), tokens, true)).t1).toStrictEqual({ kind: 'retry', reason: 'HonorFlowControl' });
  });

  it('keeps only a boolean sendResult and the text tokens of each list', () => {
    const read = readHonorAnswer(200, Buffer.from(JSON.stringify({ code: 200, data: { sendResult: 'false', failTokens: ['t1', 5, null], expireTokens: 't2' } })));
    expect(read).toMatchObject({ code: '200', sendResult: undefined, failTokens: ['t1'], expireTokens: [] });
  });

  it('names a bare 500 HonorServerError and a 5xx with a code Honor does not document Other', () => {
    expect(perToken(classifyHonorAnswer(answer(500, ''), tokens, true)).t1).toStrictEqual({ kind: 'retry', reason: 'HonorServerError' });
    expect(perToken(classifyHonorAnswer(answer(500, { code: 80999999 }), tokens, true)).t1).toStrictEqual({ kind: 'retry', reason: 'Other' });
    expect(perToken(classifyHonorAnswer(answer(499, ''), tokens, true)).t1).toStrictEqual({ kind: 'failed', reason: 'Other' });
  });
});
