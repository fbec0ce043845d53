import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { oppoSign } from '../../../../src/push/gateways/makers/oppo/oppo-sign.ts';

describe('the sign of OPPO\'s auth request', () => {
  it.each([
    // SHA-256 test vectors (FIPS 180-2): the sign is the digest of AppKey, timestamp and MasterSecret run together.
    ['a', 'b', 'c', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    ['', '', '', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['abcdbcdecdefdefgefghfghighijhijk', 'ijkljklmklmnlmnomnop', 'nopq', '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1'],
  ])('signs %j, %j, %j as the lower-case hex SHA-256 of their concatenation', (appKey, timestamp, masterSecret, sign) => {
    expect(oppoSign(appKey, timestamp, masterSecret)).toBe(sign);
  });

  it('puts the AppKey first, the timestamp second and the MasterSecret last', () => {
    const sign = oppoSign('appKey1', '1578044160000', 'masterSecret1');
    expect(sign).toBe(createHash('sha256').update('appKey11578044160000masterSecret1').digest('hex'));
    expect(sign).not.toBe(oppoSign('masterSecret1', '1578044160000', 'appKey1'));
    expect(sign).toMatch(/^[0-9a-f]{64}$/);
  });

  it('hashes the UTF-8 bytes of a secret outside ASCII', () => {
    expect(oppoSign('k', '1', '密钥')).toBe(createHash('sha256').update(Buffer.from('k1密钥', 'utf8')).digest('hex'));
  });
});
