import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';
import {
  documentedHash,
  documentedSalt,
  exportDir,
  exportedInstallation,
  exportedUser,
  removeExportDirs,
  runImport,
  scannedInstallations,
  writeJsonLines,
} from './export-fixture.ts';

/**
 * Users and devices imported from the hosted service's export work through
 * Herald's API at once: the old password logs in (and is rehashed), the
 * exported session token is still a session, a third-party account finds
 * its user, and a channel push finds the device.
 */
let h: TestHerald;
const dir = exportDir();
const documented = exportedUser(1, { username: 'documented', salt: documentedSalt, password: documentedHash, sessionToken: 'exported-session-1' });
const wechat = exportedUser(2, { authData: { weixin: { openid: 'wx-openid-2', access_token: 'old', expires_in: 7200 } } });
// The hosted SDKs' QQ objects carry the user's id as openid.
const qq = exportedUser(3, { authData: { qq: { openid: 'qq-openid-3', access_token: 'old', expires_in: 7200 } } });
const phone = exportedInstallation(4, { channels: ['imported-news'] });

beforeAll(async () => {
  h = await startTestHerald();
  const summary = await runImport(h.herald.runtime.store, dir, h.app.id, [
    writeJsonLines(join(dir, '_User.0.jsonl'), '_User', [documented, wechat, qq]),
    writeJsonLines(join(dir, '_Installation.0.jsonl'), '_Installation', [phone, exportedInstallation(5)]),
  ]);
  expect(summary.tally).toMatchObject({ _User: { imported: 3 }, _Installation: { imported: 2 } });
});
afterAll(async () => {
  await h?.close();
  removeExportDirs();
});

async function storedHash(objectId: unknown): Promise<unknown> {
  return (await h.herald.runtime.store.get(h.app.id, '_User', String(objectId)))?._hashedPassword;
}

it("logs an imported user in with the password the hosted service hashed, and replaces that hash with argon2id", async () => {
  expect(String(await storedHash(documented.objectId))).toMatch(/^\$hosted-sha512\$/);
  const login = await h.request('POST', '/1.1/login', { body: { username: 'documented', password: 'password' } });
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  expect(login.body).toMatchObject({ objectId: documented.objectId, username: 'documented', createdAt: documented.createdAt });
  expect(String(await storedHash(documented.objectId))).toMatch(/^\$argon2id\$/);

  const again = await h.request('POST', '/1.1/login', { body: { email: documented.email, password: 'password' } });
  expect(again.status).toBe(200);
  const wrong = await h.request('POST', '/1.1/login', { body: { username: 'documented', password: 'Password' } });
  expect(wrong).toMatchObject({ status: 400, body: { code: 210 } });
});

it('keeps an imported user logged in with the session token the app kept from the hosted service', async () => {
  const me = await h.request('GET', '/1.1/users/me', { session: 'exported-session-1' });
  expect(me.status, JSON.stringify(me.body)).toBe(200);
  expect(me.body).toMatchObject({ objectId: documented.objectId, username: 'documented' });
});

it('logs the imported user of a third-party account in rather than creating another', async () => {
  const login = await h.request('POST', '/1.1/users', { body: { authData: { weixin: { openid: 'wx-openid-2', access_token: 'new', expires_in: 7200 } } } });
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  expect(login.body).toMatchObject({ objectId: wechat.objectId, username: 'user2' });

  const qqLogin = await h.request('POST', '/1.1/users', { body: { authData: { qq: { openid: 'qq-openid-3', access_token: 'new', expires_in: 7200 } } } });
  expect(qqLogin.status, JSON.stringify(qqLogin.body)).toBe(200);
  expect(qqLogin.body).toMatchObject({ objectId: qq.objectId, username: 'user3' });
});

it('finds an imported installation by its channel, as a channel push reads its audience, and through the API', async () => {
  const audience = await scannedInstallations(h.herald.runtime.store, h.app.id, { kind: 'channel', channel: 'imported-news' });
  expect([...audience.values()]).toEqual([expect.objectContaining({ objectId: phone.objectId, deviceToken: phone.deviceToken, channels: ['imported-news'] })]);
  const read = await h.request('GET', `/1.1/installations/${String(phone.objectId)}`, { master: true });
  expect(read.status).toBe(200);
  expect(read.body).toMatchObject({ objectId: phone.objectId, deviceType: 'ios', createdAt: phone.createdAt, updatedAt: phone.updatedAt });
});
