import type { PlatformKind } from './platform-registry.ts';

/**
 * What one key of a platform object must hold.
 * - `string`: a non-empty string.
 * - `seconds`: a number, or a string of digits; SPEC types `expiration_in` as a
 *   string and `expires_in` as a number, but platform SDKs hand out both forms and
 *   Herald only stores them, so either is accepted.
 * - `literal`: exactly `value`.
 * - `uuid`: a UUID in lowercase hexadecimal digits.
 */
export type KeyRule =
  | { type: 'string' }
  | { type: 'seconds' }
  | { type: 'literal'; value: string }
  | { type: 'uuid' };

/** Keys a platform object of one kind must, or may, carry. */
export interface KindRules {
  /** Key whose value is the user's id on the platform: the value of SPEC Rule 1's unique index. */
  identityKey: string;
  /** Checked in this order, so the first missing key is the one reported. */
  required: Readonly<Record<string, KeyRule>>;
  /** Type-checked only when present. */
  optional: Readonly<Record<string, KeyRule>>;
  /** Whether `unionid` may appear at all (as union-id login or as the platform's own data). */
  allowsUnionid: boolean;
}

const text: KeyRule = { type: 'string' };
const seconds: KeyRule = { type: 'seconds' };

/** SPEC's "Third-party authorisation data" table, one entry per kind. */
export const kindRules: Readonly<Record<PlatformKind, KindRules>> = {
  microblog: {
    identityKey: 'uid',
    required: { uid: text, access_token: text, expiration_in: seconds },
    optional: {},
    allowsUnionid: true,
  },
  'messaging-app': {
    identityKey: 'openid',
    required: { openid: text, access_token: text, expires_in: seconds },
    optional: { refresh_token: text, scope: text },
    allowsUnionid: true,
  },
  'vendor-sign-in': {
    identityKey: 'uid',
    required: { uid: text, identity_token: text, code: text },
    optional: {},
    allowsUnionid: false,
  },
  'game-store': {
    // The per-application `openid` identifies the user, as for the messaging app;
    // the developer-wide `unionid` is kept as data.
    identityKey: 'openid',
    required: {
      kid: text,
      access_token: text,
      token_type: { type: 'literal', value: 'mac' },
      mac_key: text,
      mac_algorithm: { type: 'literal', value: 'hmac-sha-1' },
      openid: text,
    },
    // Profile fields and the store's own `unionid` are data, not union-id login.
    optional: { name: text, avatar: text, unionid: text },
    allowsUnionid: true,
  },
  anonymous: {
    identityKey: 'id',
    required: { id: { type: 'uuid' } },
    optional: {},
    allowsUnionid: false,
  },
  other: {
    // SPEC: `uid` is the platform's user id; `openid` must not be used for it.
    identityKey: 'uid',
    required: { uid: text, access_token: text },
    optional: {},
    allowsUnionid: false,
  },
};
