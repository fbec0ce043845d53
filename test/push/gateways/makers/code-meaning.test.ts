import { describe, expect, it } from 'vitest';
import { classifyHmsAnswer, readHmsAnswer } from '../../../../src/push/gateways/makers/hms/classify-hms-answer.ts';
import { classifyHonorAnswer, readHonorAnswer } from '../../../../src/push/gateways/makers/honor/classify-honor-answer.ts';
import { classifyMeizuAnswer, readMeizuAnswer } from '../../../../src/push/gateways/makers/meizu/classify-meizu-answer.ts';
import { classifyOppoAnswer, readOppoAnswer } from '../../../../src/push/gateways/makers/oppo/classify-oppo-answer.ts';
import { codeMeaning } from '../../../../src/push/gateways/makers/shared/code-meaning.ts';
import { classifyVivoAnswer, readVivoAnswer } from '../../../../src/push/gateways/makers/vivo/classify-vivo-answer.ts';
import { classifyXiaomiAnswer, readXiaomiAnswer } from '../../../../src/push/gateways/makers/xiaomi/classify-xiaomi-answer.ts';

const tokens = ['t1', 't2'];
/** The verdict alone: OPPO's and vivo's readings carry the unknown word beside it (for them a code that is not a number is no code at all). */
const verdictOf = (reading: unknown): unknown => (typeof reading === 'object' && reading !== null && 'verdict' in reading ? reading.verdict : reading);
const body = (value: unknown) => Buffer.from(JSON.stringify(value));

/** Each maker's classifier, given an error answer whose code field holds `code`. */
const makers: Record<string, (code: string) => unknown> = {
  hms: (code) => classifyHmsAnswer(readHmsAnswer(400, body({ code, msg: 'odd' })), tokens, true),
  honor: (code) => classifyHonorAnswer(readHonorAnswer(400, body({ code, message: 'odd' })), tokens, true),
  xiaomi: (code) => classifyXiaomiAnswer(readXiaomiAnswer(400, body({ result: 'error', code, reason: 'odd' })), tokens, true),
  oppo: (code) => classifyOppoAnswer(readOppoAnswer(400, body({ code, message: 'odd' })), tokens, true),
  vivo: (code) => classifyVivoAnswer(readVivoAnswer(400, body({ result: code, desc: 'odd' })), tokens, true),
  meizu: (code) => classifyMeizuAnswer(readMeizuAnswer(400, body({ code, message: 'odd' })), tokens, true),
};

describe('a code that names a property every object has', () => {
  it('is no meaning of a table', () => {
    const table = { '200': 'known' };
    expect(codeMeaning(table, '200')).toBe('known');
    for (const code of ['constructor', 'toString', '__proto__', 'hasOwnProperty', undefined]) expect(codeMeaning(table, code)).toBeUndefined();
  });

  for (const [maker, classify] of Object.entries(makers)) {
    it(`is read by ${maker} as a code it does not document`, () => {
      expect(verdictOf(classify('constructor'))).toEqual(verdictOf(classify('987654321')));
      expect(verdictOf(classify('toString'))).toEqual(verdictOf(classify('987654321')));
    });
  }
});
