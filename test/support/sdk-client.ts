import AV from 'leancloud-storage';
import type { TestApp } from './test-herald.ts';

/** The hosted service's JavaScript SDK (`leancloud-storage` 4.x), the module as a shipped app imports it. */
export type Sdk = typeof AV;

/** A user object of the SDK. */
export type SdkUser = AV.User;

/** A platform's authData as the SDK's typings describe it (they want an access_token beside a uid). */
export type SdkAuthData = AV.AuthData;

export interface SdkTarget {
  baseUrl: string;
  app: TestApp;
}

/**
 * Points the hosted service's JavaScript SDK at a test Herald the way an app
 * moving to Herald does: its app id and key, and `serverURLs` and nothing
 * else (which also turns off the SDK's app router, so it never asks the
 * hosted domain where to go). The master key is given too, as a server
 * using the same SDK holds it; requests use it only when told
 * (`{useMasterKey: true}`).
 *
 * The SDK is a process-wide singleton: call this once per test file (vitest
 * runs each file in a fork of its own). It signs every request with
 * `X-LC-Sign` over the real time; the test Herald's manual clock starts at
 * the real time, so a test must not move it past the signature window
 * (15 minutes) before the SDK's next request.
 */
export function initSdk(target: SdkTarget): Sdk {
  AV.init({ appId: target.app.id, appKey: target.app.key, masterKey: target.app.masterKey, serverURLs: target.baseUrl });
  return AV;
}

/** The objectId of an object the SDK saved or fetched (its typings leave `id` optional). */
export function idOf(object: { id?: string | undefined }): string {
  if (object.id === undefined) throw new Error('the SDK object has no objectId: it was never saved or fetched');
  return object.id;
}

interface PasswordChange {
  updatePassword(oldPassword: string, newPassword: string): Promise<unknown>;
}

/** `AV.User#updatePassword`: the SDK has it (PUT /1.1/users/<id>/updatePassword), its typings leave it out. */
export function updatePassword(user: SdkUser, oldPassword: string, newPassword: string): Promise<unknown> {
  return (user as unknown as PasswordChange).updatePassword(oldPassword, newPassword);
}

let names = 0;
/** A name no other test of this run takes: `prefix`, the time and a counter (usernames, emails, auth ids). */
export function uniqueName(prefix: string): string {
  names += 1;
  return `${prefix}${Date.now().toString(36)}${names}`;
}
