import { describe, expect, it } from 'vitest';
import { storedAuthDataUniqueKeys } from '../../src/accounts/auth-data/auth-data-unique-keys.ts';
import { heraldPlatformKey, heraldPlatformObject, toHeraldAuthData, withHostedSpellings } from '../../src/accounts/auth-data/hosted-platform-keys.ts';
import { validateAuthData } from '../../src/accounts/auth-data/validate-auth-data.ts';
import { ErrorCode, HeraldError } from '../../src/core/errors.ts';

const apple = { uid: '001234.abcdef.0123', identity_token: 'eyJraWQiOiJlWGF1', code: 'c0ffee' };
const qq = { openid: '0A1B2C3D4E5F', access_token: 'qq-token', expires_in: 7776000 };

function errorOf(run: () => unknown): HeraldError {
  try {
    run();
  } catch (error) {
    if (error instanceof HeraldError) return error;
    throw error;
  }
  throw new Error('expected a HeraldError');
}

describe('heraldPlatformKey', () => {
  it.each([
    ['lc_apple', 'svc_apple'],
    ['svc_apple', 'svc_apple'],
    ['qq', 'qq'],
    ['weixin', 'weixin'],
    ['lc_apple_extra', 'lc_apple_extra'],
  ])('answers %s as %s', (sent, stored) => {
    expect(heraldPlatformKey(sent)).toBe(stored);
  });
});

describe('heraldPlatformObject', () => {
  it('gives a qq object with openid and no uid the openid as uid, keeping what was sent', () => {
    expect(heraldPlatformObject('qq', qq)).toEqual({ ...qq, uid: qq.openid });
  });

  it.each([
    ['a qq object that has its own uid', 'qq', { ...qq, uid: 'other' }],
    ['a qq object without openid', 'qq', { uid: 'u', access_token: 't' }],
    ['a qq object with an empty openid', 'qq', { ...qq, openid: '' }],
    ['a qq object whose openid is not a string', 'qq', { ...qq, openid: 42 }],
    ['a qq value that is not an object', 'qq', 'openid'],
    ['a weixin object (openid is its own identity)', 'weixin', qq],
    ['another platform with openid', 'github', { openid: 'o', access_token: 't' }],
  ])('leaves %s as it is', (_name, key, value) => {
    expect(heraldPlatformObject(key, value)).toBe(value);
  });
});

describe('validateAuthData with the hosted spellings', () => {
  it('validates lc_apple as svc_apple, the vendor sign-in, and stores it under svc_apple', () => {
    expect(validateAuthData({ lc_apple: apple })).toEqual([{ platform: 'svc_apple', kind: 'vendor-sign-in', identity: apple.uid, union: null, data: apple }]);
  });

  it('takes the openid of a qq object as its identity', () => {
    const [entry] = validateAuthData({ qq });
    expect(entry).toMatchObject({ platform: 'qq', kind: 'other', identity: qq.openid, data: { ...qq, uid: qq.openid } });
  });

  it('names the key the client sent in its messages', () => {
    const missing = errorOf(() => validateAuthData({ lc_apple: { uid: 'u', code: 'c' } }));
    expect(missing.code).toBe(ErrorCode.missingRequiredKey);
    expect(missing.message).toBe('authData.lc_apple.identity_token is required');
    expect(errorOf(() => validateAuthData({ qq: { openid: 'o' } })).message).toBe('authData.qq.access_token is required');
  });

  it('takes both spellings naming the same account as one platform, in Herald’s spelling', () => {
    const sentBack = { ...apple, code: 'newer' };
    expect(validateAuthData({ lc_apple: apple, svc_apple: sentBack })).toEqual([expect.objectContaining({ platform: 'svc_apple', data: sentBack })]);
    expect(validateAuthData({ svc_apple: sentBack, lc_apple: apple })).toEqual([expect.objectContaining({ platform: 'svc_apple', data: sentBack })]);
  });

  it('refuses both spellings naming different accounts with 105', () => {
    const error = errorOf(() => validateAuthData({ svc_apple: apple, lc_apple: { ...apple, uid: 'someone-else' } }));
    expect(error.code).toBe(ErrorCode.invalidFieldName);
    expect(error.message).toContain('authData.svc_apple and authData.lc_apple are the same platform (svc_apple)');
  });

  it('still refuses union-id keys on qq (Rule 2), naming the key sent', () => {
    const error = errorOf(() => validateAuthData({ qq: { ...qq, unionid: 'u', platform: 'qq' } }));
    expect(error.code).toBe(ErrorCode.invalidFieldName);
    expect(error.message).toContain('authData.qq.unionid');
  });
});

describe('toHeraldAuthData, for imported users', () => {
  it('turns an export’s authData into Herald’s stored form', () => {
    const exported = { lc_apple: apple, qq, weixin: { openid: 'wx', access_token: 't', expires_in: 7200 }, _weixin_unionid: { uid: 'union' } };
    expect(toHeraldAuthData(exported)).toEqual({
      svc_apple: apple,
      qq: { ...qq, uid: qq.openid },
      weixin: exported.weixin,
      _weixin_unionid: { uid: 'union' },
    });
  });

  it('passes data it cannot judge through for the importer’s own checks', () => {
    expect(toHeraldAuthData({ lc_apple: 'not-an-object', github: { uid: 'g' } })).toEqual({ svc_apple: 'not-an-object', github: { uid: 'g' } });
  });

  it('throws 105 when an export holds both spellings for different accounts, as the reason to reject the row', () => {
    expect(errorOf(() => toHeraldAuthData({ lc_apple: apple, svc_apple: { ...apple, uid: 'x' } })).code).toBe(ErrorCode.invalidFieldName);
  });
});

describe('withHostedSpellings', () => {
  it('shows svc_apple also as lc_apple, and everything else as stored', () => {
    const stored = { svc_apple: apple, qq: { ...qq, uid: qq.openid } };
    expect(withHostedSpellings(stored)).toEqual({ svc_apple: apple, lc_apple: apple, qq: stored.qq });
    expect(stored).not.toHaveProperty('lc_apple');
  });

  it('does not overwrite a spelling that is stored', () => {
    const storedAlias = { ...apple, uid: 'old' };
    expect(withHostedSpellings({ svc_apple: apple, lc_apple: storedAlias })).toEqual({ svc_apple: apple, lc_apple: storedAlias });
  });

  it.each([null, 'x', ['svc_apple']])('answers %j as it is', (value) => {
    expect(withHostedSpellings(value)).toBe(value);
  });
});

describe('storedAuthDataUniqueKeys with the hosted spellings', () => {
  it('indexes stored lc_apple and qq-with-openid data under the keys a login looks up', () => {
    expect(storedAuthDataUniqueKeys({ lc_apple: apple, qq })).toEqual([
      { field: 'authData.svc_apple.uid', value: apple.uid },
      { field: 'authData.qq.uid', value: qq.openid },
    ]);
  });
});
