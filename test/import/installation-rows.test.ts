import { describe, expect, it } from 'vitest';
import { HeraldError } from '../../src/core/errors.ts';
import { readInstallationRow } from '../../src/import/installation-rows.ts';

export const iosToken = 'a'.repeat(64);

function exported(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    objectId: 'inst0001',
    createdAt: '2019-02-23T09:04:21.155Z',
    updatedAt: '2020-06-01T10:00:00.000Z',
    deviceType: 'ios',
    deviceToken: iosToken,
    ...fields,
  };
}

function rejection(row: Record<string, unknown>): { code: number; message: string } {
  try {
    readInstallationRow(row);
  } catch (error) {
    if (error instanceof HeraldError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('the row was accepted');
}

describe('an exported installation', () => {
  it('keeps its objectId, timestamps, device token, channels, ACL and other fields', () => {
    const installation = readInstallationRow(
      exported({
        channels: ['news', 'news', '体育'],
        badge: 3,
        timeZone: 'Asia/Shanghai',
        apnsTopic: 'com.example.app',
        owner: { __type: 'Pointer', className: '_User', objectId: 'u1' },
        valid: true,
        ACL: { '*': { read: true, write: true } },
      }),
    );
    expect(installation).toEqual({
      objectId: 'inst0001',
      createdAt: '2019-02-23T09:04:21.155Z',
      updatedAt: '2020-06-01T10:00:00.000Z',
      deviceType: 'ios',
      deviceToken: iosToken,
      channels: ['news', '体育'],
      badge: 3,
      timeZone: 'Asia/Shanghai',
      apnsTopic: 'com.example.app',
      owner: { __type: 'Pointer', className: '_User', objectId: 'u1' },
      valid: true,
      ACL: { '*': { read: true, write: true } },
    });
  });

  it('keeps a user given as one Pointer to _User, and an iOS token in lower case', () => {
    const user = { __type: 'Pointer', className: '_User', objectId: 'u1' };
    expect(readInstallationRow(exported({ user, deviceToken: iosToken.toUpperCase() }))).toMatchObject({ user, deviceToken: iosToken });
    // An Android vendor token is not a hex APNs token: kept as exported.
    const vendorToken = 'ABCDEF'.repeat(11);
    expect(readInstallationRow(exported({ deviceType: 'android', installationId: 'b2f9', deviceToken: vendorToken }))).toMatchObject({ deviceToken: vendorToken });
  });

  it('keeps an Android installation with its installationId and FCM registration id', () => {
    const { deviceToken: _ios, ...row } = exported({ deviceType: 'android', installationId: 'b2f9e1c3a4d5', registrationId: 'fcm:token-1', vendor: 'fcm' });
    const installation = readInstallationRow(row);
    expect(installation).toMatchObject({ deviceType: 'android', installationId: 'b2f9e1c3a4d5', registrationId: 'fcm:token-1', vendor: 'fcm' });
    expect(installation).not.toHaveProperty('deviceToken');
  });

  const refused: [string, Record<string, unknown>, number, RegExp][] = [
    ['no deviceType', { deviceType: undefined }, 113, /deviceType is required/],
    ['a platform Herald does not push to', { deviceType: 'wp' }, 1, /"ios" or "android"/],
    ['an iOS device without its token', { deviceToken: undefined }, 113, /deviceToken is required/],
    ['an Android device without its installationId', { deviceType: 'android', deviceToken: undefined }, 113, /installationId is required/],
    ['an iOS token that is not one', { deviceToken: 'xyz' }, 114, /invalid deviceToken/],
    ['a channel name pushes refuse', { channels: ['bad name'] }, 112, /invalid channel name/],
    ['a negative badge', { badge: -1 }, 1, /at least 0/],
    ['an ACL that is not an object', { ACL: 'public' }, 123, /ACL must be an object/],
    ['no createdAt', { createdAt: undefined }, 113, /no createdAt/],
    ['a user that is an array of pointers', { user: [{ __type: 'Pointer', className: '_User', objectId: 'u1' }] }, 111, /user must be a Pointer to _User/],
    ['a user pointing at another class', { user: { __type: 'Pointer', className: 'Player', objectId: 'u1' } }, 111, /user must be a Pointer to _User/],
    ['a user pointer inside another field', { owners: [{ __type: 'Pointer', className: '_User', objectId: 'u1' }] }, 111, /owners holds a _User pointer inside an array/],
    ['a user pointer deep inside an object', { profile: { by: { __type: 'Pointer', className: '_User', objectId: 'u1' } } }, 111, /profile holds a _User pointer/],
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
