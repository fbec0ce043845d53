import { ErrorCode, fail } from '../../core/errors.ts';

/**
 * Platform keys as the hosted service's SDKs and exports spell them, and
 * Herald's key for each. Its iOS and Swift SDKs sign in with Apple under
 * `lc_apple`, which is Herald's `svc_apple` (the vendor sign-in of SPEC.md).
 */
const hostedKeys: ReadonlyMap<string, string> = new Map([['lc_apple', 'svc_apple']]);
const hostedSpellingOf: ReadonlyMap<string, string> = new Map([...hostedKeys].map(([hosted, herald]) => [herald, hosted]));

/**
 * Platforms whose hosted SDKs send the user's id under `openid`, where Herald
 * reads `uid` (SPEC.md: other platforms identify the user by `uid`). The
 * hosted SDKs' `qq` objects are `{openid, access_token, expires_in}`.
 */
const openidPlatforms: ReadonlySet<string> = new Set(['qq']);

/** Herald's key for a platform key as a client or an export spelled it: `lc_apple` is `svc_apple`; other keys are their own. */
export function heraldPlatformKey(key: string): string {
  return hostedKeys.get(key) ?? key;
}

/**
 * A platform object as Herald stores it: a `qq` object that carries `openid`
 * and no `uid` gets `uid` = `openid` beside it, so that its identity (the
 * unique index `authData.qq.uid`) is the same whichever key the client sent
 * it under. Anything else, including values that are not objects, is
 * answered as it is (validation reports those).
 */
export function heraldPlatformObject(heraldKey: string, value: unknown): unknown {
  if (!openidPlatforms.has(heraldKey) || typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const data = value as Readonly<Record<string, unknown>>;
  const openid = Object.hasOwn(data, 'openid') ? data.openid : undefined;
  if (Object.hasOwn(data, 'uid') || typeof openid !== 'string' || openid === '') return value;
  return { ...data, uid: openid };
}

/** One platform of a client's or an export's `authData`, under Herald's key. */
export interface HeraldPlatformEntry {
  /** Herald's key: what is stored and indexed. */
  key: string;
  /** The key as sent, for messages that name what the client wrote. */
  sentAs: string;
  value: unknown;
}

/**
 * The platforms of `authData` under Herald's keys, in the order sent. When
 * both spellings of one platform are present (`lc_apple` and `svc_apple`,
 * e.g. a client sending back the user it read), they must name the same
 * account (`uid`); Herald's spelling is kept. Different accounts answer 105.
 */
export function heraldPlatformEntries(authData: Readonly<Record<string, unknown>>): HeraldPlatformEntry[] {
  const entries = new Map<string, HeraldPlatformEntry>();
  for (const [sentAs, raw] of Object.entries(authData)) {
    const key = heraldPlatformKey(sentAs);
    const entry = { key, sentAs, value: heraldPlatformObject(key, raw) };
    const earlier = entries.get(key);
    if (earlier === undefined) {
      entries.set(key, entry);
      continue;
    }
    if (uidOf(earlier.value) !== uidOf(entry.value)) {
      fail(
        ErrorCode.invalidFieldName,
        `authData.${earlier.sentAs} and authData.${sentAs} are the same platform (${key}) but name different accounts; send one of them`,
      );
    }
    if (sentAs === key) entries.set(key, entry);
  }
  return [...entries.values()];
}

/**
 * `authData` as Herald stores it, for users imported from the hosted
 * service's `_User` export (whose authData carries `lc_apple` and `qq`
 * objects with `openid`): each platform under Herald's key, `qq` with `uid`.
 * Keys that are not platforms (a leading `_`, such as the export's
 * `_weixin_unionid` marker) are left as they are. Throws a `HeraldError`
 * (105) when both spellings of a platform name different accounts, which an
 * importer reports as the row's reason.
 */
export function toHeraldAuthData(authData: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(heraldPlatformEntries(authData).map((entry) => [entry.key, entry.value]));
}

/**
 * `authData` as answers show it: as stored, plus each platform Herald stores
 * under its own key again under the hosted service's spelling (`svc_apple`
 * also as `lc_apple`), so that the hosted SDKs find the platform they linked
 * (`_isLinked('lc_apple')`, `authData.lc_apple`) and Herald's own clients
 * find theirs. A spelling already stored is not overwritten.
 */
export function withHostedSpellings(authData: unknown): unknown {
  if (typeof authData !== 'object' || authData === null || Array.isArray(authData)) return authData;
  const stored = authData as Readonly<Record<string, unknown>>;
  const shown: Record<string, unknown> = { ...stored };
  for (const [key, value] of Object.entries(stored)) {
    const hosted = hostedSpellingOf.get(key);
    if (hosted !== undefined && !Object.hasOwn(shown, hosted)) shown[hosted] = value;
  }
  return shown;
}

function uidOf(value: unknown): unknown {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, 'uid') ? (value as Record<string, unknown>).uid : undefined;
}
