import { describe, expect, it } from 'vitest';
import { authDataUniqueKeys, storedAuthDataUniqueKeys } from '../../src/accounts/auth-data/auth-data-unique-keys.ts';
import { platformKindOf } from '../../src/accounts/auth-data/platform-registry.ts';
import { unionIdFieldName, unionIdOf, unionIdUniqueKey } from '../../src/accounts/auth-data/union-id.ts';
import { validateAuthData } from '../../src/accounts/auth-data/validate-auth-data.ts';
import { ErrorCode, HeraldError } from '../../src/core/errors.ts';

type PlatformObject = Record<string, unknown>;

const anonymousId = '3f2b8c4e-9a1d-4e6f-b7c2-0d5a9e8f1b3c';

/** One valid platform object per kind, as a client would send it. */
const valid = {
  weibo: { uid: '123456789', access_token: '2.00vs3XtCI5FevCff4981adb5jj1lXE', expiration_in: '36000' },
  weixin: { openid: 'oTY851cqL0gk3DqW3xINqG1Q4PTc', access_token: '12_b6mz7ujXbTY4', expires_in: 7200 },
  svc_apple: { uid: '001234.abcdef.0123', identity_token: 'eyJraWQiOiJlWGF1', code: 'c0ffee' },
  taptap: {
    kid: 'kid-1',
    access_token: 'kid-1',
    token_type: 'mac',
    mac_key: 'mac-key',
    mac_algorithm: 'hmac-sha-1',
    openid: 'tap-openid',
    name: 'Player One',
    avatar: 'https://img.example.com/a.png',
    unionid: 'tap-unionid',
  },
  anonymous: { id: anonymousId },
  github: { uid: '4242', access_token: 'gho_token', login: 'octo' },
} satisfies Record<string, PlatformObject>;

function errorOf(run: () => unknown): HeraldError {
  try {
    run();
  } catch (error) {
    if (error instanceof HeraldError) return error;
    throw error;
  }
  throw new Error('expected a HeraldError');
}

function withKey(object: PlatformObject, key: string, value: unknown): PlatformObject {
  return { ...object, [key]: value };
}

function withoutKey(object: PlatformObject, key: string): PlatformObject {
  const copy = { ...object };
  delete copy[key];
  return copy;
}

describe('validateAuthData', () => {
  it.each([
    ['weibo', valid.weibo, 'microblog', '123456789'],
    ['weixin', valid.weixin, 'messaging-app', 'oTY851cqL0gk3DqW3xINqG1Q4PTc'],
    ['svc_apple', valid.svc_apple, 'vendor-sign-in', '001234.abcdef.0123'],
    ['taptap', valid.taptap, 'game-store', 'tap-openid'],
    ['anonymous', valid.anonymous, 'anonymous', anonymousId],
    ['github', valid.github, 'other', '4242'],
    ['qq', { uid: 'qq-user', access_token: 't' }, 'other', 'qq-user'],
    ['wechat', { uid: 'wechat-user', access_token: 't' }, 'other', 'wechat-user'],
  ])('accepts a %s object as kind %s with its identity', (platform, object, kind, identity) => {
    const [entry] = validateAuthData({ [platform]: object });
    expect(entry).toEqual({ platform, kind, identity, union: null, data: object });
  });

  it('keeps the platform object as given, extra keys included, in a copy', () => {
    const object = withKey(valid.weixin, 'scope', 'snsapi_userinfo');
    const [entry] = validateAuthData({ weixin: object });
    expect(entry?.data).toEqual(object);
    expect(entry?.data).not.toBe(object);
  });

  it('validates every platform of one request, in order', () => {
    const entries = validateAuthData({ weibo: valid.weibo, anonymous: valid.anonymous });
    expect(entries.map((entry) => entry.platform)).toEqual(['weibo', 'anonymous']);
  });

  it.each([
    ['weibo', 'uid'],
    ['weibo', 'access_token'],
    ['weibo', 'expiration_in'],
    ['weixin', 'openid'],
    ['weixin', 'access_token'],
    ['weixin', 'expires_in'],
    ['svc_apple', 'uid'],
    ['svc_apple', 'identity_token'],
    ['svc_apple', 'code'],
    ['taptap', 'kid'],
    ['taptap', 'access_token'],
    ['taptap', 'token_type'],
    ['taptap', 'mac_key'],
    ['taptap', 'mac_algorithm'],
    ['taptap', 'openid'],
    ['anonymous', 'id'],
    ['github', 'uid'],
    ['github', 'access_token'],
  ] as const)('answers 113 naming authData.%s.%s when it is missing', (platform, key) => {
    const error = errorOf(() => validateAuthData({ [platform]: withoutKey(valid[platform], key) }));
    expect(error.code).toBe(ErrorCode.missingRequiredKey);
    expect(error.message).toContain(`authData.${platform}.${key}`);
  });

  it.each([
    ['taptap', 'name'],
    ['taptap', 'avatar'],
    ['taptap', 'unionid'],
  ] as const)('does not require authData.%s.%s', (platform, key) => {
    expect(() => validateAuthData({ [platform]: withoutKey(valid[platform], key) })).not.toThrow();
  });

  it('reports a blank identity as missing', () => {
    const error = errorOf(() => validateAuthData({ weibo: withKey(valid.weibo, 'uid', '') }));
    expect(error.code).toBe(ErrorCode.missingRequiredKey);
    expect(error.message).toContain('authData.weibo.uid');
  });

  it.each([
    ['weibo', 'uid', 123456789],
    ['weibo', 'access_token', null],
    ['weibo', 'expiration_in', 'soon'],
    ['weibo', 'expiration_in', -1],
    ['weixin', 'openid', { id: 'x' }],
    ['weixin', 'expires_in', true],
    ['weixin', 'expires_in', '7200s'],
    ['weixin', 'refresh_token', 5],
    ['weixin', 'scope', ['snsapi_userinfo']],
    ['svc_apple', 'identity_token', 1],
    ['svc_apple', 'code', false],
    ['taptap', 'token_type', 'bearer'],
    ['taptap', 'mac_algorithm', 'hmac-sha-256'],
    ['taptap', 'mac_key', 7],
    ['taptap', 'name', 7],
    ['taptap', 'avatar', {}],
    ['taptap', 'unionid', 1],
    ['anonymous', 'id', 42],
    ['github', 'uid', 4242],
    ['github', 'access_token', []],
  ] as const)('answers 111 naming authData.%s.%s when it is %j', (platform, key, value) => {
    const error = errorOf(() => validateAuthData({ [platform]: withKey(valid[platform], key, value) }));
    expect(error.code).toBe(ErrorCode.invalidType);
    expect(error.message).toContain(`authData.${platform}.${key}`);
  });

  it.each([
    ['expiration_in as a number', 'weibo', 'expiration_in', 36000],
    ['expires_in as a string of digits', 'weixin', 'expires_in', '7200'],
  ] as const)('accepts %s', (_label, platform, key, value) => {
    expect(() => validateAuthData({ [platform]: withKey(valid[platform], key, value) })).not.toThrow();
  });

  it.each([null, [], 'weixin', 42, true])('answers 111 when authData is %j', (authData) => {
    expect(errorOf(() => validateAuthData(authData)).code).toBe(ErrorCode.invalidType);
  });

  it.each([null, [valid.weixin], 'token', 1])('answers 111 naming the platform when its object is %j', (object) => {
    const error = errorOf(() => validateAuthData({ weixin: object }));
    expect(error.code).toBe(ErrorCode.invalidType);
    expect(error.message).toContain('authData.weixin');
  });

  it('answers 113 for authData without any platform', () => {
    expect(errorOf(() => validateAuthData({})).code).toBe(ErrorCode.missingRequiredKey);
  });

  it.each(['_weixin_unionid', '_private', 'a.b', 'a$b', 'with space', 'wei-bo', 'é', '', 'x'.repeat(65)])(
    'answers 105 for the platform name %j',
    (platform) => {
      expect(errorOf(() => validateAuthData({ [platform]: valid.github })).code).toBe(ErrorCode.invalidFieldName);
    },
  );

  it('answers 105 for a __proto__ platform sent in JSON', () => {
    const authData: unknown = JSON.parse(`{"__proto__": ${JSON.stringify(valid.github)}}`);
    expect(errorOf(() => validateAuthData(authData)).code).toBe(ErrorCode.invalidFieldName);
  });

  it.each(['x'.repeat(64), 'Weixin2', '0app', 'my_app_1'])('accepts the platform name %j', (platform) => {
    expect(validateAuthData({ [platform]: valid.github })[0]?.kind).toBe('other');
  });

  describe('anonymous id', () => {
    it.each([
      ['uppercase digits', anonymousId.toUpperCase()],
      ['no dashes', anonymousId.replaceAll('-', '')],
      ['braces', `{${anonymousId}}`],
      ['a non-hex digit', `g${anonymousId.slice(1)}`],
      ['a short group', anonymousId.slice(0, -1)],
      ['an empty string', ''],
    ])('answers 111 for an id with %s', (_label, id) => {
      const error = errorOf(() => validateAuthData({ anonymous: { id } }));
      expect(error.code).toBe(ErrorCode.invalidType);
      expect(error.message).toContain('authData.anonymous.id');
    });
  });

  describe('union-id keys', () => {
    const unionWeixin = { ...valid.weixin, unionid: 'ox7NLs-e-32ZyHg2URi_F2iPEI2U', platform: 'weixin' };

    it.each([
      [true, true],
      ['true', true],
      [false, false],
      ['false', false],
      [undefined, false],
    ])('reads main_account %j as %s', (mainAccount, expected) => {
      const object = mainAccount === undefined ? unionWeixin : withKey(unionWeixin, 'main_account', mainAccount);
      const [entry] = validateAuthData({ weixin: object });
      expect(entry?.union).toEqual({ platform: 'weixin', unionid: 'ox7NLs-e-32ZyHg2URi_F2iPEI2U', mainAccount: expected });
      expect(entry?.data).toEqual(object);
    });

    it.each(['yes', 'TRUE', 1, 0, null])('answers 111 for main_account %j', (mainAccount) => {
      const error = errorOf(() => validateAuthData({ weixin: withKey(unionWeixin, 'main_account', mainAccount) }));
      expect(error.code).toBe(ErrorCode.invalidType);
      expect(error.message).toContain('authData.weixin.main_account');
    });

    it('treats unionid alone as platform data, not union-id login', () => {
      const [entry] = validateAuthData({ weixin: withKey(valid.weixin, 'unionid', 'u1') });
      expect(entry?.union).toBeNull();
    });

    it.each([
      ['unionid', withoutKey(unionWeixin, 'unionid')],
      ['platform', withKey(withoutKey(unionWeixin, 'platform'), 'main_account', 'true')],
    ])('answers 113 naming %s when union-id login lacks it', (key, object) => {
      const error = errorOf(() => validateAuthData({ weixin: object }));
      expect(error.code).toBe(ErrorCode.missingRequiredKey);
      expect(error.message).toContain(`authData.weixin.${key}`);
    });

    it.each([
      ['unionid', 42, ErrorCode.invalidType],
      ['unionid', '', ErrorCode.missingRequiredKey],
      ['platform', ['weixin'], ErrorCode.invalidType],
      ['platform', '', ErrorCode.missingRequiredKey],
      ['platform', 'we.ixin', ErrorCode.invalidFieldName],
      ['platform', 'we-ixin', ErrorCode.invalidFieldName],
      ['platform', 'p'.repeat(65), ErrorCode.invalidFieldName],
      ['platform', '_weixin', ErrorCode.invalidFieldName],
      ['platform', 'weixin_', ErrorCode.invalidFieldName],
      ['platform', 'my__apps', ErrorCode.invalidFieldName],
    ])('rejects %s %j with code %i', (key, value, code) => {
      const error = errorOf(() => validateAuthData({ weixin: withKey(unionWeixin, key, value) }));
      expect(error.code).toBe(code);
      expect(error.message).toContain(`authData.weixin.${key}`);
    });

    it('accepts union-id login on the microblog platform', () => {
      const object = { ...valid.weibo, unionid: 'wb-union', platform: 'weibo', main_account: false };
      expect(validateAuthData({ weibo: object })[0]?.union).toEqual({ platform: 'weibo', unionid: 'wb-union', mainAccount: false });
    });

    it('lets a registered key join a union of any valid name', () => {
      const [entry] = validateAuthData({ weixin: withKey(unionWeixin, 'platform', 'my_apps') });
      expect(entry?.union?.platform).toBe('my_apps');
    });

    it('gives a custom key that joins the weixin union the messaging-app rules (SPEC example)', () => {
      const office = { ...unionWeixin, main_account: 'true' };
      const support = { ...valid.weixin, openid: 'ZTY873cOa0gk5aOW5OaaOa3Q6PTc', unionid: unionWeixin.unionid, platform: 'weixin', main_account: 'false' };
      const entries = validateAuthData({ wxleanoffice: office, wxleansupport: support });
      expect(entries.map((entry) => [entry.platform, entry.kind, entry.identity, entry.union?.mainAccount])).toEqual([
        ['wxleanoffice', 'messaging-app', office.openid, true],
        ['wxleansupport', 'messaging-app', support.openid, false],
      ]);
      const missing = errorOf(() => validateAuthData({ wxleanoffice: withoutKey(office, 'openid') }));
      expect(missing.message).toContain('authData.wxleanoffice.openid');
    });

    it('gives a custom key that joins the weibo union the microblog rules', () => {
      const object = { ...valid.weibo, unionid: 'wb', platform: 'weibo' };
      expect(validateAuthData({ weibo_lite: object })[0]?.kind).toBe('microblog');
    });

    it.each([
      ['other', 'github', { ...valid.github, unionid: 'u', platform: 'github' }, 'unionid'],
      ['other', 'github', { ...valid.github, platform: 'github' }, 'platform'],
      ['other', 'github', { ...valid.github, main_account: true }, 'main_account'],
      ['other (custom union name)', 'lc_qqapp', { uid: 'q', access_token: 't', unionid: 'u', platform: 'qq' }, 'unionid'],
      ['other (no uid)', 'qq', { openid: 'q', access_token: 't', unionid: 'u', platform: 'qq' }, 'unionid'],
      ['vendor-sign-in', 'svc_apple', { ...valid.svc_apple, unionid: 'u', platform: 'weixin' }, 'unionid'],
      ['anonymous', 'anonymous', { ...valid.anonymous, platform: 'weixin' }, 'platform'],
      ['game-store', 'taptap', { ...valid.taptap, platform: 'taptap' }, 'platform'],
      ['game-store', 'taptap', { ...valid.taptap, main_account: 'true' }, 'main_account'],
    ])('answers 105 for union-id keys on a %s platform (Rule 2)', (_kind, platform, object, key) => {
      const error = errorOf(() => validateAuthData({ [platform]: object }));
      expect(error.code).toBe(ErrorCode.invalidFieldName);
      expect(error.message).toContain(`authData.${platform}.${key}`);
    });

    it('keeps the game store unionid as data without union-id login', () => {
      expect(validateAuthData({ taptap: valid.taptap })[0]?.union).toBeNull();
    });
  });
});

describe('platformKindOf', () => {
  it.each([
    ['weibo', 'microblog'],
    ['weixin', 'messaging-app'],
    ['svc_apple', 'vendor-sign-in'],
    ['taptap', 'game-store'],
    ['anonymous', 'anonymous'],
    ['qq', 'other'],
    ['github', 'other'],
    ['wechat', 'other'],
    ['Weixin', 'other'],
  ])('maps %s to %s', (platform, kind) => {
    expect(platformKindOf(platform)).toBe(kind);
  });
});

describe('unionIdOf', () => {
  it('answers null for an object without union-id login', () => {
    expect(unionIdOf(valid.weixin, 'weixin')).toBeNull();
    expect(unionIdOf(valid.taptap, 'taptap')).toBeNull();
  });

  it('reads the union of a platform object, main_account as a string', () => {
    const object = { ...valid.weixin, unionid: 'u-1', platform: 'weixin', main_account: 'true' };
    expect(unionIdOf(object, 'weixin')).toEqual({ platform: 'weixin', unionid: 'u-1', mainAccount: true });
  });
});

describe('unionIdFieldName', () => {
  it('names the field after the platform value inside the object', () => {
    expect(unionIdFieldName('weixin')).toBe('_weixin_unionid');
    expect(unionIdFieldName('my_apps')).toBe('_my_apps_unionid');
    expect(unionIdFieldName('p'.repeat(64))).toBe(`_${'p'.repeat(64)}_unionid`);
  });

  it.each(['', 'a.b', 'a$b', 'a-b', '_a', 'a_', 'a__b', 'q'.repeat(65)])('answers 105 for %j', (platform) => {
    expect(errorOf(() => unionIdFieldName(platform)).code).toBe(ErrorCode.invalidFieldName);
  });

  it('gives the main-account marker its own unique index', () => {
    expect(unionIdUniqueKey({ platform: 'weixin', unionid: 'u-1' })).toEqual({ field: '_weixin_unionid.uid', value: 'u-1' });
  });
});

describe('authDataUniqueKeys', () => {
  it('indexes each platform under authData.<platform>.uid by its identity', () => {
    const authData = validateAuthData({
      weibo: valid.weibo,
      weixin: valid.weixin,
      svc_apple: valid.svc_apple,
      taptap: valid.taptap,
      anonymous: valid.anonymous,
      github: valid.github,
      wxleanoffice: { ...valid.weixin, openid: 'office', unionid: 'u', platform: 'weixin' },
    });
    expect(authDataUniqueKeys(authData)).toEqual([
      { field: 'authData.weibo.uid', value: '123456789' },
      { field: 'authData.weixin.uid', value: 'oTY851cqL0gk3DqW3xINqG1Q4PTc' },
      { field: 'authData.svc_apple.uid', value: '001234.abcdef.0123' },
      { field: 'authData.taptap.uid', value: 'tap-openid' },
      { field: 'authData.anonymous.uid', value: anonymousId },
      { field: 'authData.github.uid', value: '4242' },
      { field: 'authData.wxleanoffice.uid', value: 'office' },
    ]);
  });
});

describe('storedAuthDataUniqueKeys', () => {
  it('agrees with authDataUniqueKeys on valid data', () => {
    const raw = { weixin: valid.weixin, taptap: valid.taptap, wxapp: { ...valid.weixin, openid: 'o2', unionid: 'u', platform: 'weixin' } };
    expect(storedAuthDataUniqueKeys(raw)).toEqual(authDataUniqueKeys(validateAuthData(raw)));
  });

  it('skips reserved keys and entries without a usable identity instead of throwing', () => {
    const stored = {
      _weixin_unionid: { uid: 'u-1' },
      weibo: { access_token: 'no uid' },
      github: { uid: '' },
      broken: 'not an object',
      weixin: valid.weixin,
    };
    expect(storedAuthDataUniqueKeys(stored)).toEqual([{ field: 'authData.weixin.uid', value: valid.weixin.openid }]);
  });

  it.each([undefined, null, 'x', []])('answers no keys for %j', (stored) => {
    expect(storedAuthDataUniqueKeys(stored)).toEqual([]);
  });
});
