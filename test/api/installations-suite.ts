import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InstallationStore, ShardScan } from '../../src/core/ports/installation-store.ts';
import type { StoredObject } from '../../src/core/ports/object-store.ts';
import { startTestHerald, testApp, type TestApp, type TestHerald, type TestHeraldOptions, type TestResponse } from '../support/test-herald.ts';

/** The store a run of the suite uses, and how to remove its data afterwards. */
export interface InstallationsBackend {
  name: string;
  options(): Promise<Pick<TestHeraldOptions, 'store'>>;
  cleanup(): Promise<void>;
}

const iosToken = (): string => randomBytes(32).toString('hex');
const androidId = (): string => randomUUID();
const suffix = (): string => randomBytes(4).toString('hex');

/** URL query parameters; objects are sent as JSON. */
function query(params: Record<string, unknown>): string {
  const pairs = Object.entries(params).map(([key, value]) => `${key}=${encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value))}`);
  return `?${pairs.join('&')}`;
}

/** Counts what queries ask of the store's `scanShard`, optionally cutting pages shorter to force cursors. */
function watchScans(installations: InstallationStore, options: { pageLimit?: number } = {}) {
  const original = installations.scanShard.bind(installations);
  const stats = { calls: 0, rows: 0, largestPage: 0, largestLimit: 0, inFlight: 0, maxInFlight: 0, indexes: new Set<string>(), cursors: 0 };
  installations.scanShard = async (appId: string, scan: ShardScan) => {
    stats.calls += 1;
    stats.inFlight += 1;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    stats.largestLimit = Math.max(stats.largestLimit, scan.limit);
    stats.indexes.add(scan.index.kind === 'all' ? 'all' : scan.index.kind === 'channel' ? `c:${scan.index.channel}` : `t:${scan.index.deviceType}`);
    if (scan.after !== null) stats.cursors += 1;
    try {
      const page = await original(appId, options.pageLimit === undefined ? scan : { ...scan, limit: Math.min(scan.limit, options.pageLimit) });
      stats.rows += page.installations.length;
      stats.largestPage = Math.max(stats.largestPage, page.installations.length);
      return page;
    } finally {
      stats.inFlight -= 1;
    }
  };
  return { stats, restore: () => void (installations.scanShard = original) };
}

export function describeInstallationsApi(backend: InstallationsBackend): void {
  describe(`installations on ${backend.name}`, () => {
    let h: TestHerald;
    /** An app that opens find and delete on `_Installation` to ordinary keys and protects one field. */
    const openApp = testApp({
      settings: { classPermissions: { _Installation: { find: true, delete: true } }, protectedFields: { _Installation: ['secretNote'] } },
    });
    /** An app holding only the bulk data of the 5,000-installation queries. */
    const bulkApp = testApp();

    beforeAll(async () => {
      h = await startTestHerald({ ...(await backend.options()), extraApps: [openApp, bulkApp] });
    });
    afterAll(async () => {
      await h?.close();
      await backend.cleanup();
    });

    const post = (body: unknown, options: { app?: TestApp; session?: string; master?: boolean } = {}) =>
      h.request('POST', '/1.1/installations', { body, ...options });

    async function created(body: Record<string, unknown>, options: { app?: TestApp; session?: string; master?: boolean } = {}): Promise<string> {
      const res = await post(body, options);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.objectId as string;
    }

    async function stored(objectId: string, app?: TestApp): Promise<Record<string, unknown>> {
      const res = await h.request('GET', `/1.1/installations/${objectId}`, { master: true, ...(app ? { app } : {}) });
      expect(res.status).toBe(200);
      return res.body;
    }

    async function countWhere(where: Record<string, unknown>, app?: TestApp): Promise<number> {
      const res = await h.request('GET', `/1.1/installations${query({ where, count: 1, limit: 0 })}`, { master: true, ...(app ? { app } : {}) });
      expect(res.status).toBe(200);
      return res.body.count as number;
    }

    async function newUser(app?: TestApp): Promise<{ objectId: string; sessionToken: string }> {
      const res = await h.request('POST', '/1.1/users', { body: { username: `u${suffix()}`, password: 'pw-123456' }, ...(app ? { app } : {}) });
      expect(res.status).toBe(201);
      return { objectId: res.body.objectId as string, sessionToken: res.body.sessionToken as string };
    }

    function expectError(res: TestResponse, status: number, code: number): void {
      expect({ status: res.status, code: res.body.code }, JSON.stringify(res.body)).toEqual({ status, code });
      expect(typeof res.body.error).toBe('string');
    }

    describe('creating and re-saving', () => {
      it('creates an iOS installation: 201, Location, {objectId, createdAt}, and GET shows every field', async () => {
        const token = iosToken();
        const body = {
          deviceType: 'ios',
          deviceToken: token,
          channels: ['news', '新闻'],
          apnsTopic: 'com.example.app',
          apnsTeamId: 'TEAM123456',
          deviceProfile: 'prod-cert',
          badge: 3,
          timeZone: 'Asia/Shanghai',
          favouriteColour: 'green',
        };
        const res = await post(body);
        expect(res.status).toBe(201);
        expect(Object.keys(res.body).sort()).toEqual(['createdAt', 'objectId']);
        expect(res.headers.get('location')).toBe(`${h.baseUrl}/1.1/installations/${res.body.objectId}`);
        const read = await h.request('GET', `/1.1/installations/${res.body.objectId}`);
        expect(read.status).toBe(200);
        expect(read.body).toEqual({ ...body, objectId: res.body.objectId, createdAt: res.body.createdAt, updatedAt: res.body.createdAt });
      });

      it('creates an Android installation with its FCM registration token', async () => {
        const id = androidId();
        const objectId = await created({ deviceType: 'android', installationId: id, registrationId: `fcm:${suffix()}_token-part`, vendor: 'fcm' });
        expect(await stored(objectId)).toMatchObject({ deviceType: 'android', installationId: id, vendor: 'fcm' });
      });

      it('updates the iOS installation holding the token: 200, same objectId, newer updatedAt', async () => {
        const token = iosToken();
        const first = await post({ deviceType: 'ios', deviceToken: token, badge: 1 });
        h.clock.advance(60_000);
        const again = await post({ deviceType: 'ios', deviceToken: token, badge: 5 });
        expect(again.status).toBe(200);
        expect(Object.keys(again.body).sort()).toEqual(['objectId', 'updatedAt']);
        expect(again.body.objectId).toBe(first.body.objectId);
        expect(Date.parse(again.body.updatedAt)).toBe(Date.parse(first.body.createdAt) + 60_000);
        expect(await stored(first.body.objectId)).toMatchObject({ badge: 5, createdAt: first.body.createdAt, updatedAt: again.body.updatedAt });
        expect(await countWhere({ deviceToken: token })).toBe(1);
      });

      it('updates the Android installation holding the installationId, refreshing updatedAt even when nothing else changes', async () => {
        const id = androidId();
        const first = await post({ deviceType: 'android', installationId: id, channels: ['a'] });
        h.clock.advance(1000);
        const again = await post({ deviceType: 'android', installationId: id });
        expect(again.status).toBe(200);
        expect(again.body.objectId).toBe(first.body.objectId);
        expect(again.body.updatedAt > first.body.createdAt).toBe(true);
        // Within the same millisecond the new updatedAt still moves on.
        const third = await post({ deviceType: 'android', installationId: id });
        expect(third.body.updatedAt > again.body.updatedAt).toBe(true);
        expect(await stored(first.body.objectId)).toMatchObject({ channels: ['a'], updatedAt: third.body.updatedAt });
      });

      it('re-saves by the device key alone when the body has no deviceType', async () => {
        const token = iosToken();
        const objectId = await created({ deviceType: 'ios', deviceToken: token });
        const again = await post({ deviceToken: token, badge: 0 });
        expect(again.status).toBe(200);
        expect(again.body.objectId).toBe(objectId);
        expectError(await post({ deviceToken: iosToken() }), 400, 113);
      });

      it('ends 20 concurrent first saves of one device as one installation', async () => {
        for (const [deviceType, key, value] of [
          ['ios', 'deviceToken', iosToken()],
          ['android', 'installationId', androidId()],
        ] as const) {
          const answers = await Promise.all(Array.from({ length: 20 }, (_, n) => post({ deviceType, [key]: value, launch: n })));
          expect(answers.map((res) => res.status).sort()).toEqual([...Array<number>(19).fill(200), 201]);
          expect(new Set(answers.map((res) => res.body.objectId)).size).toBe(1);
          expect(await countWhere({ [key]: value })).toBe(1);
        }
      });

      it('accepts an ordinary key with a stale session token for a device without an ACL', async () => {
        const res = await post({ deviceType: 'ios', deviceToken: iosToken() }, { session: 'no-such-session-token' });
        expect(res.status).toBe(201);
      });
    });

    describe('refusing bad input', () => {
      const token = iosToken();
      const cases: [string, unknown, number][] = [
        ['a body that is not an object', [1, 2], 107],
        ['no deviceType and no device key', { channels: ['x'] }, 113],
        ['a deviceType that is not a string', { deviceType: 1, deviceToken: token }, 111],
        ['an unknown deviceType', { deviceType: 'windows', deviceToken: token }, 1],
        ['iOS without a deviceToken', { deviceType: 'ios', installationId: androidId() }, 113],
        ['a malformed deviceToken', { deviceType: 'ios', deviceToken: 'not-hex' }, 114],
        ['a short deviceToken', { deviceType: 'ios', deviceToken: 'abcd' }, 114],
        ['a deviceToken that is not a string', { deviceType: 'ios', deviceToken: 42 }, 111],
        ['Android without an installationId', { deviceType: 'android', deviceToken: 'abc' }, 113],
        ['an installationId with a space', { deviceType: 'android', installationId: 'a b' }, 114],
        ['an installationId over 128 characters', { deviceType: 'android', installationId: 'x'.repeat(129) }, 114],
        ['a registrationId with a space', { deviceType: 'android', installationId: androidId(), registrationId: 'a b' }, 114],
        ['channels that are not an array', { deviceType: 'ios', deviceToken: token, channels: 'news' }, 111],
        ['a bad channel name', { deviceType: 'ios', deviceToken: token, channels: ['ok', 'not ok!'] }, 112],
        ['a bad channel in Add', { deviceType: 'ios', deviceToken: token, channels: { __op: 'Add', objects: ['a.b'] } }, 112],
        ['an Increment of channels', { deviceType: 'ios', deviceToken: token, channels: { __op: 'Increment' } }, 111],
        ['a badge that is a string', { deviceType: 'ios', deviceToken: token, badge: '3' }, 111],
        ['a negative badge', { deviceType: 'ios', deviceToken: token, badge: -1 }, 1],
        ['an apnsTopic that is not a string', { deviceType: 'ios', deviceToken: token, apnsTopic: 7 }, 111],
        ['an invalid ACL', { deviceType: 'ios', deviceToken: token, ACL: { '*': { read: 'yes' } } }, 123],
        ['a reserved field name', { deviceType: 'ios', deviceToken: token, _secret: 1 }, 105],
        ['a field name with a dot', { deviceType: 'ios', deviceToken: token, 'a.b': 1 }, 105],
        ['a field name with a $', { deviceType: 'ios', deviceToken: token, $where: 1 }, 105],
        ['a Pointer without an objectId', { deviceType: 'ios', deviceToken: token, owner: { __type: 'Pointer', className: '_User' } }, 111],
        ['too many channels', { deviceType: 'ios', deviceToken: token, channels: Array.from({ length: 257 }, (_, n) => `c${n}`) }, 1],
        ['a user that is an array of pointers', { deviceType: 'ios', deviceToken: token, user: [{ __type: 'Pointer', className: '_User', objectId: 'u1' }] }, 111],
        ['an AddUnique of a user pointer', { deviceType: 'ios', deviceToken: token, user: { __op: 'AddUnique', objects: [{ __type: 'Pointer', className: '_User', objectId: 'u1' }] } }, 111],
        ['a user pointer inside another field', { deviceType: 'ios', deviceToken: token, friends: { __op: 'Add', objects: [{ __type: 'Pointer', className: '_User', objectId: 'u1' }] } }, 111],
      ];
      it.each(cases)('answers %s with its code and stores nothing', async (_name, body, code) => {
        const res = await post(body);
        expectError(res, 400, code);
        expect(await countWhere({ deviceToken: token })).toBe(0);
      });

      it('refuses a deviceType change, on PUT and on a re-save, changing nothing', async () => {
        const token = iosToken();
        const objectId = await created({ deviceType: 'ios', deviceToken: token, installationId: androidId() });
        const before = await stored(objectId);
        expectError(await h.request('PUT', `/1.1/installations/${objectId}`, { body: { deviceType: 'android' } }), 400, 1);
        expectError(await post({ deviceType: 'android', installationId: before.installationId }), 400, 1);
        expect(await stored(objectId)).toEqual(before);
      });

      it('answers 137 when a save would take a device key another installation holds, changing nothing', async () => {
        const heldToken = iosToken();
        const holder = await created({ deviceType: 'ios', deviceToken: heldToken });
        const other = await created({ deviceType: 'ios', deviceToken: iosToken(), badge: 1 });
        const before = await stored(other);
        expectError(await h.request('PUT', `/1.1/installations/${other}`, { body: { deviceToken: heldToken, badge: 9 } }), 400, 137);
        expect(await stored(other)).toEqual(before);

        const heldId = androidId();
        await created({ deviceType: 'android', installationId: heldId });
        const newId = androidId();
        expectError(await post({ deviceType: 'android', installationId: newId, deviceToken: heldToken }), 400, 137);
        expect(await countWhere({ installationId: newId })).toBe(0);
        expectError(await post({ deviceType: 'ios', deviceToken: before.deviceToken, installationId: heldId }), 400, 137);
        expect(await stored(other)).toEqual(before);
        expect((await stored(holder)).deviceToken).toBe(heldToken);
      });
    });

    describe('channels', () => {
      it('applies Add, AddUnique, Remove, Delete and a full array', async () => {
        const objectId = await created({ deviceType: 'android', installationId: androidId(), channels: ['a', 'a', 'b'] });
        const put = async (channels: unknown): Promise<unknown> => {
          const res = await h.request('PUT', `/1.1/installations/${objectId}`, { body: { channels } });
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          expect(Object.keys(res.body)).toEqual(['updatedAt']);
          return (await stored(objectId)).channels;
        };
        expect((await stored(objectId)).channels).toEqual(['a', 'b']);
        expect(await put({ __op: 'Add', objects: ['b', 'c'] })).toEqual(['a', 'b', 'c']);
        expect(await put({ __op: 'AddUnique', objects: ['c', 'ニュース', '뉴스', 'x=y-z_1'] })).toEqual(['a', 'b', 'c', 'ニュース', '뉴스', 'x=y-z_1']);
        expect(await put({ __op: 'Remove', objects: ['a', 'ニュース', 'never-there'] })).toEqual(['b', 'c', '뉴스', 'x=y-z_1']);
        expect(await put(['solo'])).toEqual(['solo']);
        expect(await put({ __op: 'Delete' })).toBeUndefined();
        expect(await put([])).toEqual([]);
      });

      it('accepts channel operations on a re-save', async () => {
        const id = androidId();
        const objectId = await created({ deviceType: 'android', installationId: id, channels: ['one'] });
        expect((await post({ deviceType: 'android', installationId: id, channels: { __op: 'AddUnique', objects: ['two'] } })).status).toBe(200);
        expect((await stored(objectId)).channels).toEqual(['one', 'two']);
      });

      it('refuses a bad channel name with 112 and leaves the channels as they were', async () => {
        const objectId = await created({ deviceType: 'ios', deviceToken: iosToken(), channels: ['keep'] });
        const before = await stored(objectId);
        for (const channels of [['fine', 'bad name'], { __op: 'AddUnique', objects: ['x/y'] }, { __op: 'Remove', objects: [7] }, ['a'.repeat(129)]]) {
          expectError(await h.request('PUT', `/1.1/installations/${objectId}`, { body: { channels, badge: 2 } }), 400, 112);
        }
        expect(await stored(objectId)).toEqual(before);
      });
    });

    describe('custom fields and user pointers', () => {
      it('stores custom fields and a user pointer that queries find', async () => {
        const user = await newUser();
        const pointer = { __type: 'Pointer', className: '_User', objectId: user.objectId };
        const objectId = await created({ deviceType: 'ios', deviceToken: iosToken(), user: pointer, level: 7, tags: ['x'] }, { session: user.sessionToken });
        const byUser = await h.request('GET', `/1.1/installations${query({ where: { user: pointer } })}`, { master: true });
        expect(byUser.body.results.map((row: { objectId: string }) => row.objectId)).toEqual([objectId]);
        const byLevel = await h.request('GET', `/1.1/installations${query({ where: { level: { $gte: 7 }, user: pointer }, keys: 'level' })}`, { master: true });
        expect(byLevel.body.results).toEqual([expect.objectContaining({ objectId, level: 7 })]);
        expect(byLevel.body.results[0]).not.toHaveProperty('user');
        const increment = await h.request('PUT', `/1.1/installations/${objectId}`, { body: { level: { __op: 'Increment', amount: 2 }, tags: { __op: 'Add', objects: ['y'] } } });
        expect(increment.status).toBe(200);
        expect(await stored(objectId)).toMatchObject({ level: 9, tags: ['x', 'y'], user: pointer });
      });

      it('lets an ordinary key point an installation only at the user of its session', async () => {
        const owner = await newUser();
        const stranger = await newUser();
        const pointer = { __type: 'Pointer', className: '_User', objectId: owner.objectId };
        const token = iosToken();
        expectError(await post({ deviceType: 'ios', deviceToken: token, user: pointer }), 403, 403);
        expectError(await post({ deviceType: 'ios', deviceToken: token, user: pointer }, { session: stranger.sessionToken }), 403, 403);
        expect(await countWhere({ deviceToken: token })).toBe(0);
        const objectId = await created({ deviceType: 'ios', deviceToken: token, user: pointer }, { session: owner.sessionToken });
        // An SDK re-saving what it already holds needs no session; the master key may point anywhere.
        expect((await post({ deviceType: 'ios', deviceToken: token, user: pointer })).status).toBe(200);
        const moved = { ...pointer, objectId: stranger.objectId };
        expectError(await h.request('PUT', `/1.1/installations/${objectId}`, { body: { user: moved } }), 403, 403);
        expect((await h.request('PUT', `/1.1/installations/${objectId}`, { body: { user: moved }, master: true })).status).toBe(200);
      });
    });

    describe('iOS device tokens in either case', () => {
      it('keeps one installation for a device saved with its token in upper and then in lower case, stored in lower case', async () => {
        const token = iosToken();
        const first = await post({ deviceType: 'ios', deviceToken: token.toUpperCase(), channels: ['a'] });
        expect(first.status).toBe(201);
        expect((await stored(first.body.objectId)).deviceToken).toBe(token);
        const again = await post({ deviceType: 'ios', deviceToken: token, badge: 2 });
        expect([again.status, again.body.objectId]).toEqual([200, first.body.objectId]);
        const withoutType = await post({ deviceToken: token.toUpperCase(), badge: 3 });
        expect([withoutType.status, withoutType.body.objectId]).toEqual([200, first.body.objectId]);
        const put = await h.request('PUT', `/1.1/installations/${first.body.objectId}`, { body: { deviceToken: token.toUpperCase() } });
        expect(put.status).toBe(200);
        expect(await stored(first.body.objectId)).toMatchObject({ deviceToken: token, badge: 3 });
        expect(await countWhere({ deviceToken: token })).toBe(1);
        expect(await countWhere({ deviceToken: token.toUpperCase() })).toBe(1);
        expect(await countWhere({ deviceToken: { $in: [token.toUpperCase()] } })).toBe(1);
      });

      it('finds an installation stored with an upper-case token before tokens were normalised, and moves it to lower case', async () => {
        const token = iosToken();
        const at = new Date(h.clock.now()).toISOString();
        const objectId = randomBytes(12).toString('hex');
        await h.herald.runtime.store.installations.insert(h.app.id, { objectId, createdAt: at, updatedAt: at, deviceType: 'ios', deviceToken: token.toUpperCase() });
        const again = await post({ deviceType: 'ios', deviceToken: token });
        expect([again.status, again.body.objectId]).toEqual([200, objectId]);
        expect((await stored(objectId)).deviceToken).toBe(token);
        expect(await countWhere({ deviceToken: token })).toBe(1);
        // The old spelling is free again and names the same device.
        expect((await post({ deviceType: 'ios', deviceToken: token.toUpperCase() })).body.objectId).toBe(objectId);
      });

      it('keeps the case of an Android deviceToken, which is not an APNs token', async () => {
        const vendorToken = `${iosToken().toUpperCase()}`;
        const objectId = await created({ deviceType: 'android', installationId: androidId(), deviceToken: vendorToken });
        expect((await stored(objectId)).deviceToken).toBe(vendorToken);
      });
    });

    describe('reading, updating and deleting one installation', () => {
      it('answers 404 with code 101 for unknown or impossible ids', async () => {
        for (const id of ['000000000000000000000000', 'bad%20id', 'x'.repeat(65)]) {
          expectError(await h.request('GET', `/1.1/installations/${id}`), 404, 101);
          expectError(await h.request('PUT', `/1.1/installations/${id}`, { body: { badge: 1 } }), 404, 101);
          expectError(await h.request('DELETE', `/1.1/installations/${id}`, { master: true }), 404, 101);
        }
      });

      it('keeps find and delete closed to ordinary keys by default (403), open to the master key', async () => {
        const objectId = await created({ deviceType: 'ios', deviceToken: iosToken() });
        expectError(await h.request('GET', '/1.1/installations'), 403, 403);
        expectError(await h.request('DELETE', `/1.1/installations/${objectId}`), 403, 403);
        expect((await h.request('GET', `/1.1/installations/${objectId}`)).status).toBe(200);
        const removed = await h.request('DELETE', `/1.1/installations/${objectId}`, { master: true });
        expect(removed.status).toBe(200);
        expect(removed.body).toEqual({});
        expectError(await h.request('GET', `/1.1/installations/${objectId}`), 404, 101);
        expectError(await h.request('DELETE', `/1.1/installations/${objectId}`, { master: true }), 404, 101);
      });

      it('enforces the ACL of an installation on reads, updates, re-saves and deletes', async () => {
        const owner = await newUser(openApp);
        const other = await newUser(openApp);
        const token = iosToken();
        const objectId = await created({ deviceType: 'ios', deviceToken: token, ACL: { [owner.objectId]: { read: true, write: true } } }, { app: openApp });
        const as = (session?: string) => ({ app: openApp, ...(session ? { session } : {}) });

        expectError(await h.request('GET', `/1.1/installations/${objectId}`, as()), 404, 101);
        expectError(await h.request('GET', `/1.1/installations/${objectId}`, as(other.sessionToken)), 404, 101);
        expect((await h.request('GET', `/1.1/installations/${objectId}`, as(owner.sessionToken))).status).toBe(200);
        expect((await h.request('GET', `/1.1/installations/${objectId}`, { app: openApp, master: true })).status).toBe(200);

        expectError(await h.request('PUT', `/1.1/installations/${objectId}`, { ...as(), body: { badge: 1 } }), 403, 403);
        expectError(await h.request('PUT', `/1.1/installations/${objectId}`, { ...as(other.sessionToken), body: { badge: 1 } }), 403, 403);
        expectError(await post({ deviceType: 'ios', deviceToken: token, badge: 1 }, as()), 403, 403);
        expect((await stored(objectId, openApp)).badge).toBeUndefined();
        expect((await h.request('PUT', `/1.1/installations/${objectId}`, { ...as(owner.sessionToken), body: { badge: 4 } })).status).toBe(200);
        expect((await post({ deviceType: 'ios', deviceToken: token, badge: 5 }, as(owner.sessionToken))).status).toBe(200);
        expect((await stored(objectId, openApp)).badge).toBe(5);

        const channel = `acl${suffix()}`;
        await h.request('PUT', `/1.1/installations/${objectId}`, { ...as(owner.sessionToken), body: { channels: [channel] } });
        const open = await created({ deviceType: 'ios', deviceToken: iosToken(), channels: [channel] }, { app: openApp });
        const find = async (session?: string) =>
          (await h.request('GET', `/1.1/installations${query({ where: { channels: channel }, count: 1 })}`, as(session))).body;
        expect(await find()).toEqual({ results: [expect.objectContaining({ objectId: open })], count: 1 });
        expect((await find(owner.sessionToken)).count).toBe(2);

        expectError(await h.request('DELETE', `/1.1/installations/${objectId}`, as(other.sessionToken)), 403, 403);
        const deleted = await h.request('DELETE', `/1.1/installations/${objectId}`, as(owner.sessionToken));
        expect(deleted.status).toBe(200);
        expect(deleted.body).toEqual({});
        expect((await h.request('DELETE', `/1.1/installations/${open}`, as())).status).toBe(200);
      });

      it('hides protected fields from ordinary keys and refuses queries on them', async () => {
        const objectId = await created({ deviceType: 'android', installationId: androidId(), secretNote: 'hush', shown: 1 }, { app: openApp });
        const plain = await h.request('GET', `/1.1/installations/${objectId}`, { app: openApp });
        expect(plain.body).toMatchObject({ shown: 1 });
        expect(plain.body).not.toHaveProperty('secretNote');
        expect((await stored(objectId, openApp)).secretNote).toBe('hush');
        expectError(await h.request('GET', `/1.1/installations${query({ where: { secretNote: 'hush' } })}`, { app: openApp }), 403, 403);
        const master = await h.request('GET', `/1.1/installations${query({ where: { secretNote: 'hush' } })}`, { app: openApp, master: true });
        expect(master.body.results.map((row: { objectId: string }) => row.objectId)).toEqual([objectId]);
      });
    });

    describe('queries', () => {
      it('finds exactly the subscribers of a channel, with count, limit, skip, order and keys', async () => {
        const channel = `news${suffix()}`;
        const subscribers: string[] = [];
        for (let n = 0; n < 7; n += 1) {
          h.clock.advance(10);
          subscribers.push(await created({ deviceType: n % 2 ? 'ios' : 'android', ...(n % 2 ? { deviceToken: iosToken() } : { installationId: androidId() }), channels: ['other', channel], rank: 10 - n }));
        }
        await created({ deviceType: 'ios', deviceToken: iosToken(), channels: ['other'] });
        await created({ deviceType: 'android', installationId: androidId() });
        const ids = async (params: Record<string, unknown>) => {
          const res = await h.request('GET', `/1.1/installations${query(params)}`, { master: true });
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          return res.body;
        };
        expect((await ids({ where: { channels: channel } })).results.map((row: StoredObject) => row.objectId)).toEqual(subscribers);
        expect(await ids({ where: { channels: channel }, count: 1, limit: 0 })).toEqual({ results: [], count: 7 });
        const page = await ids({ where: { channels: channel }, count: 1, limit: 2, skip: 1 });
        expect(page.count).toBe(7);
        expect(page.results.map((row: StoredObject) => row.objectId)).toEqual(subscribers.slice(1, 3));
        expect((await ids({ where: { channels: channel }, order: 'rank' })).results.map((row: StoredObject) => row.objectId)).toEqual([...subscribers].reverse());
        expect((await ids({ where: { channels: channel }, order: '-createdAt', limit: 3 })).results.map((row: StoredObject) => row.objectId)).toEqual(subscribers.slice(4).reverse());
        const iosOnly = await ids({ where: { channels: { $all: [channel, 'other'] }, deviceType: 'ios' }, keys: 'deviceType' });
        expect(iosOnly.results.map((row: StoredObject) => row.objectId)).toEqual(subscribers.filter((_, n) => n % 2 === 1));
        expect(Object.keys(iosOnly.results[0]).sort()).toEqual(['createdAt', 'deviceType', 'objectId', 'updatedAt']);
        expect((await ids({ where: { channels: { $in: [] } }, count: 1 })).count).toBe(0);
      });

      it('answers an installation in several channels of a $in once', async () => {
        const [first, second] = [`in${suffix()}`, `in${suffix()}`];
        const both = await created({ deviceType: 'ios', deviceToken: iosToken(), channels: [first, second] });
        const onlySecond = await created({ deviceType: 'ios', deviceToken: iosToken(), channels: [second] });
        const res = await h.request('GET', `/1.1/installations${query({ where: { channels: { $in: [second, first] } }, count: 1 })}`, { master: true });
        expect(res.body.count).toBe(2);
        expect(res.body.results.map((row: StoredObject) => row.objectId).sort()).toEqual([both, onlySecond].sort());
      });

      it('refuses malformed query parameters with {code, error}', async () => {
        expectError(await h.request('GET', '/1.1/installations?where=%7Bnot-json', { master: true }), 400, 107);
        expectError(await h.request('GET', `/1.1/installations${query({ limit: 1001 })}`, { master: true }), 400, 1);
        expectError(await h.request('GET', `/1.1/installations${query({ where: { _private: 1 } })}`, { master: true }), 400, 105);
      });
    });

    describe('5,000 installations', () => {
      const total = 5000;
      const base = Date.parse('2026-01-01T00:00:00.000Z');
      let docs: StoredObject[];
      let installations: InstallationStore;

      beforeAll(async () => {
        installations = h.herald.runtime.store.installations;
        // createdAt in an order unrelated to the objectIds and to the insertion order.
        const minutes = Array.from({ length: total }, (_, n) => n).sort(() => Math.random() - 0.5);
        docs = minutes.map((minute, n) => {
          const at = new Date(base + minute * 60_000).toISOString();
          const ios = n % 2 === 0;
          return {
            objectId: randomBytes(12).toString('hex'),
            createdAt: at,
            updatedAt: at,
            deviceType: ios ? 'ios' : 'android',
            ...(ios ? { deviceToken: iosToken() } : { installationId: androidId() }),
            channels: n % 25 === 0 ? ['bulk-news', 'bulk-all'] : ['bulk-all'],
            score: Math.floor(Math.random() * 300),
          };
        });
        await installations.insertMany(bulkApp.id, docs);
      }, 240_000);

      const list = async (params: Record<string, unknown>) => {
        const res = await h.request('GET', `/1.1/installations${query(params)}`, { app: bulkApp, master: true });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return res.body;
      };
      const byCreatedAt = (a: StoredObject, b: StoredObject) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0);
      const byScoreDescending = (a: StoredObject, b: StoredObject) =>
        (b.score as number) - (a.score as number) || (a.objectId < b.objectId ? -1 : 1);

      it('answers the right 10 by createdAt and by a custom field, reading every shard page by page', async () => {
        const watch = watchScans(installations);
        try {
          const oldest = await list({ limit: 10, order: 'createdAt', count: 1 });
          expect(oldest.count).toBe(total);
          expect(oldest.results.map((row: StoredObject) => row.objectId)).toEqual([...docs].sort(byCreatedAt).slice(0, 10).map((doc) => doc.objectId));
          expect(watch.stats.rows).toBe(total);
          expect(watch.stats.calls).toBeGreaterThanOrEqual(installations.shardCount);
          expect(watch.stats.largestLimit).toBeLessThanOrEqual(200);
          expect(watch.stats.largestPage).toBeLessThanOrEqual(200);
          expect(watch.stats.maxInFlight).toBe(1);
          expect([...watch.stats.indexes]).toEqual(['all']);

          const best = await list({ limit: 10, skip: 5, order: '-score' });
          expect(best.results.map((row: StoredObject) => row.objectId)).toEqual([...docs].sort(byScoreDescending).slice(5, 15).map((doc) => doc.objectId));
        } finally {
          watch.restore();
        }
      });

      it('follows each shard’s cursor when pages are short', async () => {
        const watch = watchScans(installations, { pageLimit: 7 });
        try {
          const newest = await list({ limit: 10, order: '-createdAt' });
          expect(newest.results.map((row: StoredObject) => row.objectId)).toEqual([...docs].sort(byCreatedAt).reverse().slice(0, 10).map((doc) => doc.objectId));
          expect(watch.stats.rows).toBe(total);
          expect(watch.stats.largestPage).toBeLessThanOrEqual(7);
          expect(watch.stats.cursors).toBeGreaterThan(0);
          expect(watch.stats.calls).toBeGreaterThanOrEqual(Math.ceil(total / 7));
        } finally {
          watch.restore();
        }
      });

      it('reads only the channel index for a channel query', async () => {
        const subscribers = docs.filter((doc) => (doc.channels as string[]).includes('bulk-news'));
        const watch = watchScans(installations);
        try {
          const res = await list({ where: { channels: 'bulk-news' }, order: '-score', limit: 10, count: 1 });
          expect(res.count).toBe(subscribers.length);
          expect(res.results.map((row: StoredObject) => row.objectId)).toEqual([...subscribers].sort(byScoreDescending).slice(0, 10).map((doc) => doc.objectId));
          expect(watch.stats.rows).toBe(subscribers.length);
          expect([...watch.stats.indexes]).toEqual(['c:bulk-news']);
        } finally {
          watch.restore();
        }
      });

      it('reads only the device-type index for a deviceType query', async () => {
        const watch = watchScans(installations);
        try {
          const res = await list({ where: { deviceType: 'android', score: { $lt: 10 } }, count: 1, limit: 0 });
          expect(res.count).toBe(docs.filter((doc) => doc.deviceType === 'android' && (doc.score as number) < 10).length);
          expect(watch.stats.rows).toBe(total / 2);
          expect([...watch.stats.indexes]).toEqual(['t:android']);
        } finally {
          watch.restore();
        }
      });
    });
  });
}
