import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { vivoSign } from '../../../../src/push/gateways/makers/vivo/vivo-sign.ts';

describe('the sign of vivo\'s auth request', () => {
  it.each([
    // MD5 test vectors (RFC 1321): the sign is the digest of App ID, AppKey, timestamp and AppSecret run together.
    ['', '', '', '', 'd41d8cd98f00b204e9800998ecf8427e'],
    ['a', 'b', '', 'c', '900150983cd24fb0d6963f7d28e17f72'],
    ['message d', 'igest', '', '', 'f96b697d7cb7938d525a2f31aaf161d0'],
    ['abcdefghijklm', 'nopqrstuvwxyz', '', '', 'c3fcd3d76192e4007dfb496cca67e13b'],
  ])('signs %j, %j, %j, %j as the lower-case hex MD5 of their concatenation, each part trimmed', (appId, appKey, timestamp, appSecret, sign) => {
    expect(vivoSign(appId, appKey, timestamp, appSecret)).toBe(sign);
  });

  it('puts the App ID first, then the AppKey, the timestamp and the AppSecret', () => {
    // The example of vivo's auth page: appId 10004, its appKey, timestamp 1501484120000 (its AppSecret is not published).
    const sign = vivoSign('10004', '25509283-3767-4b9e-83fe-b6e55ac6243e', '1501484120000', 'secret');
    expect(sign).toBe(createHash('md5').update('1000425509283-3767-4b9e-83fe-b6e55ac6243e1501484120000secret').digest('hex'));
    expect(sign).not.toBe(vivoSign('25509283-3767-4b9e-83fe-b6e55ac6243e', '10004', '1501484120000', 'secret'));
    expect(sign).toMatch(/^[0-9a-f]{32}$/);
  });

  it('trims each part, as vivo\'s page says', () => {
    expect(vivoSign(' 10004 ', 'key ', ' 1501484120000', ' secret\t')).toBe(vivoSign('10004', 'key', '1501484120000', 'secret'));
  });

  it('hashes the UTF-8 bytes of a secret outside ASCII', () => {
    expect(vivoSign('1', 'k', '2', '密钥')).toBe(createHash('md5').update(Buffer.from('1k2密钥', 'utf8')).digest('hex'));
  });
});
