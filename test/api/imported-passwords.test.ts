import { afterAll, beforeAll, expect, it } from 'vitest';
import { encodeHostedHash, hostedPasswordHash } from '../../src/accounts/legacy-password.ts';
import { UserField, userClass } from '../../src/accounts/user-fields.ts';
import { isoTime } from '../../src/core/clock.ts';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';

/**
 * A user imported from the hosted service keeps their password: the
 * exported hash is checked at login and replaced by argon2id there, so no
 * one has to reset.
 */
let h: TestHerald;

beforeAll(async () => {
  h = await startTestHerald();
});
afterAll(async () => {
  await h?.close();
});

async function importUser(objectId: string, username: string, password: string): Promise<void> {
  const salt = `salt-${objectId}`;
  const at = isoTime(h.clock.now() - 86_400_000);
  await h.herald.runtime.store.insert(h.app.id, userClass, {
    objectId,
    createdAt: at,
    updatedAt: at,
    username,
    [UserField.hashedPassword]: encodeHostedHash(salt, hostedPasswordHash(salt, password)),
    [UserField.sessionToken]: `imported-session-${objectId}`,
  });
}

async function storedHash(objectId: string): Promise<unknown> {
  return (await h.herald.runtime.store.get(h.app.id, userClass, objectId))?.[UserField.hashedPassword];
}

it('logs an imported user in with the old password and replaces the hash with argon2id', async () => {
  await importUser('importedUser01', 'imported-1', 'old-secret');
  const login = await h.request('POST', '/1.1/login', { body: { username: 'imported-1', password: 'old-secret' } });
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  expect(login.body).toMatchObject({ objectId: 'importedUser01', username: 'imported-1' });
  expect(String(await storedHash('importedUser01'))).toMatch(/^\$argon2id\$/);

  // The new hash holds the same password.
  const again = await h.request('POST', '/1.1/login', { body: { username: 'imported-1', password: 'old-secret' } });
  expect(again.status).toBe(200);
});

it('refuses a wrong password for an imported user, counting it, and keeps the imported hash', async () => {
  await importUser('importedUser02', 'imported-2', 'old-secret');
  const wrong = await h.request('POST', '/1.1/login', { body: { username: 'imported-2', password: 'not-it' } });
  expect(wrong).toMatchObject({ status: 400, body: { code: 210 } });
  expect(String(await storedHash('importedUser02'))).toMatch(/^\$hosted-sha512\$/);
});

it('lets an imported user change the password with the old one', async () => {
  await importUser('importedUser03', 'imported-3', 'old-secret');
  const session = 'imported-session-importedUser03';
  const changed = await h.request('PUT', '/1.1/users/importedUser03/updatePassword', {
    session,
    body: { old_password: 'old-secret', new_password: 'new-secret' },
  });
  expect(changed.status, JSON.stringify(changed.body)).toBe(200);
  expect(String(await storedHash('importedUser03'))).toMatch(/^\$argon2id\$/);
  expect((await h.request('POST', '/1.1/login', { body: { username: 'imported-3', password: 'new-secret' } })).status).toBe(200);
  expect((await h.request('POST', '/1.1/login', { body: { username: 'imported-3', password: 'old-secret' } })).status).toBe(400);
});
