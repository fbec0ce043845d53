import { describe, expect, it } from 'vitest';
import { meizuSign } from '../../../../src/push/gateways/makers/meizu/meizu-sign.ts';

describe('meizuSign', () => {
  it('gives the signature of Meizu\'s documented example (接口签名规范)', () => {
    // Meizu's README: appId 10000, one pushId, this messageJson and the secret "<APP_SECRET>" sign as ac076ff25d9900015a681cb5172aa53b.
    const params = {
      appId: '10000',
      pushIds: 'RA50c6348036344485d01776773577c64740465480a6b',
      messageJson: '{"title":"title","content":"content","pushTimeInfo":{"offLine":1,"validTime":24}}',
    };
    expect(meizuSign(params, '<APP_SECRET>')).toBe('ac076ff25d9900015a681cb5172aa53b');
  });

  it.each([
    ['sorts the parameters by name whatever their order', { k2: 'v2', k1: 'v1', k3: 'v3' }, 'k1=v1k2=v2k3=v3'],
    ['sorts by code unit, capitals first, as Java\'s TreeMap', { b: '2', a: '1', B: '3', A1: '4' }, 'A1=4B=3a=1b=2'],
    ['leaves sign itself out', { sign: 'old', appId: '1' }, 'appId=1'],
    ['signs the raw values, not their URL-encoding', { messageJson: '{"t":"中 文&="}', appId: '7' }, 'appId=7messageJson={"t":"中 文&="}'],
  ])('%s', async (_, params, base) => {
    const { createHash } = await import('node:crypto');
    expect(meizuSign(params, 'secret')).toBe(createHash('md5').update(`${base}secret`, 'utf8').digest('hex'));
  });

  it('is 32 lower-case hex digits and changes with the secret', () => {
    const params = { appId: '1', pushIds: 'a,b' };
    expect(meizuSign(params, 's1')).toMatch(/^[0-9a-f]{32}$/);
    expect(meizuSign(params, 's1')).not.toBe(meizuSign(params, 's2'));
  });
});
