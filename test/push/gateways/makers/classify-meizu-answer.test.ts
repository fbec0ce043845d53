import { describe, expect, it } from 'vitest';
import { reasonsBySource } from '../../../../src/push/gateways/delivery-reasons.ts';
import { classifyMeizuAnswer, readMeizuAnswer, unknownMapCodes } from '../../../../src/push/gateways/makers/meizu/classify-meizu-answer.ts';
import type { BatchVerdict } from '../../../../src/push/gateways/makers/maker.ts';

const ids = ['p1', 'p2', 'p3'];

function answer(status: number, body: unknown, retryAfterMs?: number) {
  return readMeizuAnswer(status, Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)), retryAfterMs);
}

/** Each pushId's outcome under a verdict of kind `tokens`. */
function perId(verdict: BatchVerdict, of: readonly string[] = ids) {
  if (verdict.kind !== 'tokens') throw new Error(`expected a verdict per pushId, got ${verdict.kind}`);
  return Object.fromEntries(of.map((id) => [id, verdict.outcomes?.get(id) ?? verdict.others]));
}

const delivered = { kind: 'delivered' };

describe('classifyMeizuAnswer', () => {
  it('delivers every pushId of Meizu\'s documented success', () => {
    const ok = answer(200, { code: '200', message: '', msgId: 'c2ee5c3bf00448cfbceb7fdf68c3c8eb', value: {} });
    expect(perId(classifyMeizuAnswer(ok, ids, false))).toEqual({ p1: delivered, p2: delivered, p3: delivered });
  });

  it('removes the pushIds of Meizu\'s documented failure map (110002, 110003) and delivers the others', () => {
    // Meizu's README, "失败情况" of pushByPushId.
    const documented = answer(200, {
      code: '200',
      message: '',
      value: { '110002': ['p1', 'elsewhere'], '110003': ['p3'] },
      msgId: 'c2ee5c3bf00448cfbceb7fdf68c3c8eb',
    });
    expect(perId(classifyMeizuAnswer(documented, ids, false))).toEqual({
      p1: { kind: 'invalid-token', reason: 'Meizu110002', unregistered: true },
      p2: delivered,
      p3: { kind: 'invalid-token', reason: 'Meizu110003', unregistered: true },
    });
  });

  it.each([
    ['110010', { kind: 'failed', reason: 'MeizuSwitchedOff' }],
    ['110011', { kind: 'failed', reason: 'Meizu110011' }],
    ['201', { kind: 'failed', reason: 'Meizu201' }],
    ['520', { kind: 'failed', reason: 'Meizu520' }],
    ['501', { kind: 'retry', reason: 'Meizu501' }],
    ['513', { kind: 'retry', reason: 'Meizu513' }],
    ['518', { kind: 'retry', reason: 'Meizu518' }],
    ['519', { kind: 'retry', reason: 'Meizu519' }],
    ['777', { kind: 'failed', reason: 'Other' }],
  ])('reads a pushId listed under %s in the map as %j, the others delivered', (mapCode, outcome) => {
    const read = answer(200, { code: '200', value: { [mapCode]: ['p2'] } });
    expect(perId(classifyMeizuAnswer(read, ids, true))).toEqual({ p1: delivered, p2: outcome, p3: delivered });
    expect(unknownMapCodes(read)).toEqual(mapCode === '777' ? ['777'] : []);
  });

  it('keeps the installations of a top-level 110002/110003 unless the request held that one pushId through a proven profile', () => {
    const whole = answer(200, { code: '110003', message: 'pushId非法', value: '' });
    expect(perId(classifyMeizuAnswer(whole, ['p1'], true), ['p1']).p1).toEqual({ kind: 'invalid-token', reason: 'Meizu110003', unregistered: true });
    expect(perId(classifyMeizuAnswer(whole, ['p1'], false), ['p1']).p1).toEqual({ kind: 'invalid-token', reason: 'Meizu110003', unregistered: false });
    expect(perId(classifyMeizuAnswer(answer(200, { code: '110002' }), ids, true)).p2).toEqual({ kind: 'invalid-token', reason: 'Meizu110002', unregistered: false });
  });

  it.each(['110019', '110051'])('marks the profile\'s day spent on %s', (code) => {
    expect(classifyMeizuAnswer(answer(200, { code, message: '超过该应用每天推送次数限制', value: '' }), ids, true)).toEqual({ kind: 'quota-exhausted', word: `Meizu${code}` });
  });

  it.each([
    [200, { code: '110010', message: '应用请求频率超过限制', value: '', redirect: '' }, 'Meizu110010'],
    [200, { code: '1003' }, 'Meizu1003'],
    [200, { code: '1001' }, 'Meizu1001'],
    [200, { code: '500' }, 'Meizu500'],
    [429, '', 'MeizuTooManyRequests'],
    [502, '<html>bad gateway</html>', 'MeizuServerError'],
  ])('retries status %i with %j as %s, after its Retry-After', (status, body, reason) => {
    expect(perId(classifyMeizuAnswer(answer(status, body, 2000), ids, true)).p1).toEqual({ kind: 'retry', reason, retryAfterMs: 2000 });
  });

  it.each(['1005', '1006', '110000', '110001', '110004', '110009', '110031', '110032', '110033', '110053'])('fails every pushId on %s and removes nothing', (code) => {
    expect(perId(classifyMeizuAnswer(answer(200, { code }), ids, true))).toEqual({
      p1: { kind: 'failed', reason: `Meizu${code}` },
      p2: { kind: 'failed', reason: `Meizu${code}` },
      p3: { kind: 'failed', reason: `Meizu${code}` },
    });
  });

  it('counts an undocumented code as Other, judged by the status, and a 200 it cannot read as failed', () => {
    expect(perId(classifyMeizuAnswer(answer(200, { code: '42' }), ids, true)).p1).toEqual({ kind: 'failed', reason: 'Other' });
    expect(perId(classifyMeizuAnswer(answer(503, { code: '42' }), ids, true)).p1).toEqual({ kind: 'retry', reason: 'Other' });
    expect(perId(classifyMeizuAnswer(answer(200, 'not json'), ids, true)).p1).toEqual({ kind: 'failed', reason: 'Other' });
  });

  it('reads a numeric code as its digits and ignores map entries that are not lists of strings', () => {
    const read = answer(200, { code: 200, value: { '110002': 'p1', '110003': [1, 'p2'] } });
    expect(read.code).toBe('200');
    expect(perId(classifyMeizuAnswer(read, ids, true))).toEqual({ p1: delivered, p2: { kind: 'invalid-token', reason: 'Meizu110003', unregistered: true }, p3: delivered });
  });

  it('names only documented reasons', () => {
    const words = new Set<string>([...reasonsBySource.meizu, 'Other']);
    const verdicts = [
      classifyMeizuAnswer(answer(200, { code: '200', value: Object.fromEntries(['110002', '110003', '110010', '110011', '201', '501', '513', '518', '519', '520'].map((c, n) => [c, [`p${n}`]])) }), ids, true),
      ...['500', '1001', '1003', '1005', '1006', '110000', '110001', '110002', '110003', '110004', '110009', '110010', '110031', '110032', '110033', '110053'].map((code) =>
        classifyMeizuAnswer(answer(200, { code }), ids, true),
      ),
      ...[429, 500, 503].map((status) => classifyMeizuAnswer(answer(status, ''), ids, true)),
    ];
    for (const verdict of verdicts) {
      const outcomes = verdict.kind === 'tokens' ? [verdict.others, ...(verdict.outcomes?.values() ?? [])] : verdict.kind === 'auth-rejected' ? [verdict.outcome] : [];
      for (const outcome of outcomes) if (outcome.kind !== 'delivered') expect(words).toContain(outcome.reason);
      if (verdict.kind === 'quota-exhausted') expect(words).toContain(verdict.word);
    }
  });
});

describe('Meizu answers at the edges of their shape', () => {
  it('reads a body that is JSON but not an object as no code, judged by the status', () => {
    for (const body of ['null', '5', '"text"']) expect(readMeizuAnswer(503, Buffer.from(body)).code).toBeUndefined();
    expect(perId(classifyMeizuAnswer(answer(503, 'null'), ids, true)).p1).toStrictEqual({ kind: 'retry', reason: 'MeizuServerError' });
  });

  it('counts a pushId listed under a code that is a name of every object, such as constructor, as Other', () => {
    const odd = answer(200, { code: '200', value: { constructor: ['p1'], toString: ['p2'] } });
    expect(perId(classifyMeizuAnswer(odd, ids, true))).toStrictEqual({ p1: { kind: 'failed', reason: 'Other' }, p2: { kind: 'failed', reason: 'Other' }, p3: { kind: 'delivered' } });
    expect(unknownMapCodes(odd)).toEqual(['constructor', 'toString']);
  });

  it('keeps only lists of text from value, and no value that is a list or null', () => {
    expect(answer(200, { code: '200', value: { '110002': ['p1', 5, null], '110003': 'p2' } }).value).toEqual({ '110002': ['p1'] });
    expect(answer(200, { code: '200', value: [['p1']] }).value).toEqual({});
    expect(answer(200, { code: '200', value: null }).value).toEqual({});
  });

  it('names a bare 500 MeizuServerError and a 5xx or 429 with a code Meizu does not document Other', () => {
    expect(perId(classifyMeizuAnswer(answer(500, ''), ids, true)).p1).toStrictEqual({ kind: 'retry', reason: 'MeizuServerError' });
    expect(perId(classifyMeizuAnswer(answer(502, { code: '999' }), ids, true)).p1).toStrictEqual({ kind: 'retry', reason: 'Other' });
    expect(perId(classifyMeizuAnswer(answer(429, { code: '999' }), ids, true)).p1).toStrictEqual({ kind: 'retry', reason: 'Other' });
    expect(perId(classifyMeizuAnswer(answer(499, ''), ids, true)).p1).toStrictEqual({ kind: 'failed', reason: 'Other' });
  });
});
