import { describe, expect, it } from 'vitest';
import { verifyHostedHash } from '../../src/accounts/legacy-password.ts';
import { HeraldError } from '../../src/core/errors.ts';
import { readUserRow } from '../../src/import/user-rows.ts';
import { documentedHash, documentedSalt } from './export-fixture.ts';


const options = { newSessionToken: () => 'fresh-token' };

function exported(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    objectId: '5c710c95c05a807a4d9d7179',
    createdAt: '2019-02-23T09:04:21.155Z',
    updatedAt: '2020-06-01T10:00:00Z',
    username: 'alice',
    ...fields,
  };
}

function rejection(row: Record<string, unknown>): { code: number; message: string } {
  try {
    readUserRow(row, options);
  } catch (error) {
    if (error instanceof HeraldError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('the row was accepted');
}

describe('an exported user', () => {
  it('keeps its objectId, timestamps, fields, ACL and session token', () => {
    const user = readUserRow(
      exported({
        email: 'alice@example.com',
        mobilePhoneNumber: '+8613800000000',
        emailVerified: true,
        mobilePhoneVerified: false,
        sessionToken: 'exported-token',
        birthday: { __type: 'Date', iso: '1990-01-01T00:00:00.000Z' },
        avatar: { __type: 'Pointer', className: 'Picture', objectId: 'p1' },
        ACL: { '*': { read: true, write: false }, '5c710c95c05a807a4d9d7179': { read: true, write: true } },
      }),
      options,
    );
    expect(user).toEqual({
      objectId: '5c710c95c05a807a4d9d7179',
      createdAt: '2019-02-23T09:04:21.155Z',
      updatedAt: '2020-06-01T10:00:00.000Z',
      username: 'alice',
      email: 'alice@example.com',
      mobilePhoneNumber: '+8613800000000',
      emailVerified: true,
      mobilePhoneVerified: false,
      birthday: { __type: 'Date', iso: '1990-01-01T00:00:00.000Z' },
      avatar: { __type: 'Pointer', className: 'Picture', objectId: 'p1' },
      ACL: { '*': { read: true }, '5c710c95c05a807a4d9d7179': { read: true, write: true } },
      sessionToken: 'exported-token',
    });
  });

  it('reads createdAt and updatedAt written as {"__type": "Date"} too, and takes createdAt for a missing updatedAt', () => {
    const user = readUserRow(exported({ createdAt: { __type: 'Date', iso: '2019-02-23T09:04:21Z' }, updatedAt: undefined }), options);
    expect(user).toMatchObject({ createdAt: '2019-02-23T09:04:21.000Z', updatedAt: '2019-02-23T09:04:21.000Z' });
  });

  it("stores the exported password hash and salt in the form login checks, and drops both fields", () => {
    const user = readUserRow(exported({ password: documentedHash, salt: documentedSalt }), options);
    expect(user._hashedPassword).toMatch(/^\$hosted-sha512\$/);
    expect(verifyHostedHash(String(user._hashedPassword), 'password')).toBe(true);
    expect(verifyHostedHash(String(user._hashedPassword), 'Password')).toBe(false);
    expect(user).not.toHaveProperty('password');
    expect(user).not.toHaveProperty('salt');
  });

  it('gives a user exported without a session token or an ACL what a sign-up gives', () => {
    const user = readUserRow(exported(), options);
    expect(user.sessionToken).toBe('fresh-token');
    expect(user.ACL).toEqual({ '*': { read: true }, '5c710c95c05a807a4d9d7179': { read: true, write: true } });
    expect(user).not.toHaveProperty('_hashedPassword');
  });

  it('moves the mark of a union main account out of authData to the user field Herald indexes', () => {
    const authData = {
      wxleanoffice: { platform: 'weixin', openid: 'office-openid', access_token: 't', expires_in: 7200, main_account: true, unionid: 'union-1' },
      _weixin_unionid: { uid: 'union-1' },
      github: { uid: 'gh-1', access_token: 't' },
    };
    const user = readUserRow(exported({ authData }), options);
    expect(user.authData).toEqual({ wxleanoffice: authData.wxleanoffice, github: authData.github });
    expect(user._weixin_unionid).toEqual({ uid: 'union-1' });
  });

  it('marks a main account exported without its mark, as linking it would', () => {
    const user = readUserRow(
      exported({ authData: { weibo: { uid: 'w1', access_token: 't', expiration_in: '7200', platform: 'weibo', unionid: 'u9', main_account: 'true' } } }),
      options,
    );
    expect(user._weibo_unionid).toEqual({ uid: 'u9' });
  });

  it("stores third-party platforms under Herald's keys, as the API stores the SDKs' spellings", () => {
    const apple = { uid: 'apple-user', identity_token: 'jwt', code: 'c' };
    const user = readUserRow(exported({ authData: { lc_apple: apple, qq: { openid: 'qq-openid', access_token: 't', expires_in: 7200 } } }), options);
    expect(user.authData).toEqual({ svc_apple: apple, qq: { openid: 'qq-openid', uid: 'qq-openid', access_token: 't', expires_in: 7200 } });
  });

  it('leaves out fields the export holds as null where Herald has none', () => {
    const user = readUserRow(exported({ email: null, mobilePhoneNumber: null, emailVerified: null, authData: null }), options);
    expect(user).not.toHaveProperty('email');
    expect(user).not.toHaveProperty('mobilePhoneNumber');
    expect(user).not.toHaveProperty('emailVerified');
    expect(user).not.toHaveProperty('authData');
  });

  const refused: [string, Record<string, unknown>, number, RegExp][] = [
    ['no objectId', { objectId: undefined }, 104, /no objectId/],
    ['an objectId a route could not read', { objectId: 'a/b' }, 111, /objectId must be/],
    ['no createdAt', { createdAt: undefined }, 113, /no createdAt/],
    ['a date that is not one', { updatedAt: 'yesterday' }, 111, /updatedAt must be an ISO date/],
    ['a password hash without its salt', { password: documentedHash }, 113, /no salt/],
    ['a password that is not an exported hash', { password: 'plain-text', salt: 's' }, 111, /base64 of a SHA-512 digest/],
    ['an email sign-up would refuse', { email: 'not an email' }, 125, /invalid email/],
    ['a mobile number sign-up would refuse', { mobilePhoneNumber: '12' }, 127, /invalid mobile phone/],
    ['a blank username', { username: '  ' }, 217, /blank/],
    ['a reserved field', { _hashedPassword: 'x' }, 105, /reserved/],
    ['a field name with a dot', { 'a.b': 1 }, 105, /invalid field name/],
    ['an ACL with an unknown permission', { ACL: { '*': { admin: true } } }, 123, /unknown ACL permission/],
    ['a value that is an operation', { score: { __op: 'Increment', amount: 1 } }, 111, /operation/],
    ['authData that is not an object', { authData: 'weixin' }, 111, /authData must be an object/],
    ['a reserved authData key that is no union mark', { authData: { _secret: {} } }, 105, /neither a platform nor a union mark/],
    ['both spellings of one platform naming two accounts', { authData: { lc_apple: { uid: 'a' }, svc_apple: { uid: 'b' } } }, 105, /name different accounts/],
    ['a session token that is not a string', { sessionToken: 7 }, 111, /sessionToken must be a string/],
  ];
  for (const [what, fields, code, message] of refused) {
    it(`is refused with ${code} for ${what}`, () => {
      const row = exported(fields);
      for (const [field, value] of Object.entries(fields)) if (value === undefined) delete row[field];
      const answer = rejection(row);
      expect(answer.code, answer.message).toBe(code);
      expect(answer.message).toMatch(message);
    });
  }
});
