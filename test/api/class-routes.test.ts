import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';

/**
 * The hosted service's SDKs sign up through /1.1/users but fetch, save,
 * delete and query users through /1.1/classes/_User, and save installations
 * through /1.1/classes/_Installation. Those paths are the same endpoints,
 * with the same rules.
 */
let h: TestHerald;
const token = 'a'.repeat(64);

beforeAll(async () => {
  h = await startTestHerald();
});
afterAll(async () => {
  await h?.close();
});

it('serves a user through /classes/_User as through /users', async () => {
  const created = await h.request('POST', '/1.1/classes/_User', { body: { username: 'classy', password: 'secret-1' } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const { objectId, sessionToken } = created.body as { objectId: string; sessionToken: string };

  const read = await h.request('GET', `/1.1/classes/_User/${objectId}`, { session: sessionToken });
  expect(read).toMatchObject({ status: 200, body: { objectId, username: 'classy' } });

  const updated = await h.request('PUT', `/1.1/classes/_User/${objectId}`, { session: sessionToken, body: { nickname: 'C' } });
  expect(updated.status, JSON.stringify(updated.body)).toBe(200);
  expect((await h.request('GET', `/1.1/users/${objectId}`, { session: sessionToken })).body).toMatchObject({ nickname: 'C' });

  // The same rules: another caller's session may not write this user.
  const other = await h.request('POST', '/1.1/users', { body: { username: 'other', password: 'secret-1' } });
  const refused = await h.request('PUT', `/1.1/classes/_User/${objectId}`, { session: String(other.body.sessionToken), body: { nickname: 'X' } });
  expect(refused.status).toBe(403);

  const found = await h.request('GET', `/1.1/classes/_User?where=${encodeURIComponent(JSON.stringify({ username: 'classy' }))}`, { master: true });
  expect(found).toMatchObject({ status: 200, body: { results: [{ objectId }] } });

  const deleted = await h.request('DELETE', `/1.1/classes/_User/${objectId}`, { session: sessionToken });
  expect(deleted).toMatchObject({ status: 200, body: {} });
  expect(await h.request('GET', `/1.1/users/${objectId}`, { master: true })).toMatchObject({ status: 400, body: { code: 211 } });

  // Metrics tell the two paths apart, each by its own template.
  const metrics = await (await fetch(`${h.baseUrl}/metrics`)).text();
  expect(metrics).toMatch(/herald_http_request_duration_seconds_count\{method="PUT",route="\/1\.1\/classes\/_User\/:objectId",status="200"\} 1\b/);
  expect(metrics).toMatch(/herald_http_request_duration_seconds_count\{method="GET",route="\/1\.1\/users\/:objectId",status="200"\} [1-9]/);
});

it('saves, reads, updates and deletes an installation through /classes/_Installation', async () => {
  const saved = await h.request('POST', '/1.1/classes/_Installation', { body: { deviceType: 'ios', deviceToken: token, channels: ['news'] } });
  expect(saved.status, JSON.stringify(saved.body)).toBe(201);
  const { objectId } = saved.body as { objectId: string };
  // Saved again by the SDK at the next start: the same device, 200.
  const again = await h.request('POST', '/1.1/classes/_Installation', { body: { deviceType: 'ios', deviceToken: token, channels: ['news', 'sport'] } });
  expect(again).toMatchObject({ status: 200, body: { objectId } });

  expect((await h.request('GET', `/1.1/installations/${objectId}`)).body).toMatchObject({ channels: ['news', 'sport'] });
  const updated = await h.request('PUT', `/1.1/classes/_Installation/${objectId}`, { body: { channels: { __op: 'Remove', objects: ['news'] } } });
  expect(updated.status, JSON.stringify(updated.body)).toBe(200);
  expect((await h.request('GET', `/1.1/classes/_Installation/${objectId}`)).body).toMatchObject({ channels: ['sport'] });

  // Closed by default, as on /installations: deleting needs the master key.
  expect(await h.request('DELETE', `/1.1/classes/_Installation/${objectId}`)).toMatchObject({ status: 403, body: { code: 403 } });
  expect((await h.request('DELETE', `/1.1/classes/_Installation/${objectId}`, { master: true })).status).toBe(200);
  expect(await h.request('GET', `/1.1/installations/${objectId}`)).toMatchObject({ status: 404, body: { code: 101 } });
});
