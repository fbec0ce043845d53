import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestResponse } from '../../support/test-herald.ts';
import { iosInstallation, startPushHerald, type PushHerald } from '../support/push-herald.ts';

/**
 * An attacker holding only the app key tries to receive the pushes meant for
 * another user's devices by smuggling a Pointer to the victim into its own
 * installation: inside an array, through an array operation, on POST and PUT,
 * through the `/classes/_Installation` alias and inside a batch. Every
 * attempt is refused with 111 and changes nothing, and the master key's push
 * to `where: {user: <victim>}` reaches the victim's device only.
 */
let p: PushHerald;

beforeAll(async () => {
  p = await startPushHerald();
});
afterAll(async () => {
  await p?.close();
});

const token = (): string => randomBytes(32).toString('hex');

async function newUser(): Promise<{ objectId: string; sessionToken: string; pointer: Record<string, string> }> {
  const res = await p.h.request('POST', '/1.1/users', { body: { username: `u${randomBytes(4).toString('hex')}`, password: 'pw-123456' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const objectId = res.body.objectId as string;
  return { objectId, sessionToken: res.body.sessionToken as string, pointer: { __type: 'Pointer', className: '_User', objectId } };
}

function expectRefused(res: TestResponse | { error?: { code?: number } }, what: string): void {
  const code = 'status' in res ? (res.status === 400 ? res.body.code : `HTTP ${res.status}`) : res.error?.code;
  expect(code, `${what}: ${JSON.stringify('body' in res ? res.body : res)}`).toBe(111);
}

/** The victim's own device, saved with its session, and the attacker's, saved with the app key alone. */
async function victimAndAttacker(): Promise<{ victim: Awaited<ReturnType<typeof newUser>>; victimToken: string; attackerToken: string; attackerId: string }> {
  const victim = await newUser();
  const victimToken = token();
  const saved = await p.h.request('POST', '/1.1/installations', {
    session: victim.sessionToken,
    body: { deviceType: 'ios', deviceToken: victimToken, user: victim.pointer },
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(201);
  const attackerToken = token();
  const attackerId = await p.saveInstallation({ deviceType: 'ios', deviceToken: attackerToken });
  return { victim, victimToken, attackerToken, attackerId };
}

/** Sends the master key's push to the victim and answers the record once it is done. */
async function pushToUser(pointer: Record<string, string>, alert: string): Promise<Record<string, unknown>> {
  const res = await p.send({ where: { user: pointer }, data: { alert } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return p.settled(res.body.objectId as string);
}

describe("smuggling a victim's user pointer into an installation", () => {
  it('refuses every shape on POST, PUT and the _Installation alias with 111, and the push reaches only the victim', async () => {
    const { victim, victimToken, attackerToken, attackerId } = await victimAndAttacker();
    const ptr = victim.pointer;
    const shapes: [string, Record<string, unknown>][] = [
      ['user as an array', { user: [ptr] }],
      ['user Add', { user: { __op: 'Add', objects: [ptr] } }],
      ['user AddUnique', { user: { __op: 'AddUnique', objects: [ptr] } }],
      ['user Remove', { user: { __op: 'Remove', objects: [ptr] } }],
      ['another field as an array', { owners: [ptr] }],
      ['another field Add', { owners: { __op: 'Add', objects: [ptr] } }],
      ['another field AddUnique', { owners: { __op: 'AddUnique', objects: [ptr] } }],
      ['a pointer inside an object', { profile: { owner: ptr } }],
      ['a pointer deep inside arrays and objects', { history: [{ devices: [{ by: [ptr] }] }] }],
    ];
    for (const [name, fields] of shapes) {
      for (const path of ['/1.1/installations', '/1.1/classes/_Installation']) {
        expectRefused(await p.h.request('POST', path, { body: { deviceType: 'ios', deviceToken: token(), ...fields } }), `POST ${path} ${name}`);
        expectRefused(await p.h.request('POST', path, { body: { deviceType: 'ios', deviceToken: attackerToken, ...fields } }), `re-save ${path} ${name}`);
        expectRefused(await p.h.request('PUT', `${path}/${attackerId}`, { body: fields }), `PUT ${path} ${name}`);
      }
    }
    // Not even the victim's own session may nest it: the rule is about shape, not about who asks.
    expectRefused(
      await p.h.request('POST', '/1.1/installations', { session: victim.sessionToken, body: { deviceType: 'ios', deviceToken: token(), user: [ptr] } }),
      'the victim nesting its own pointer',
    );
    const attacker = await p.h.request('GET', `/1.1/installations/${attackerId}`, { master: true });
    expect(Object.keys(attacker.body).sort()).toEqual(['createdAt', 'deviceToken', 'deviceType', 'objectId', 'updatedAt']);

    const record = await pushToUser(ptr, 'For the victim');
    expect(record).toMatchObject({ devices: 1, successes: 1 });
    expect(p.fakes.apns.deliveriesTo(victimToken)).toHaveLength(1);
    expect(p.fakes.apns.deliveriesTo(attackerToken)).toHaveLength(0);
  });

  it('refuses the same writes inside a batch, entry by entry, and the push reaches only the victim', async () => {
    const { victim, victimToken, attackerToken, attackerId } = await victimAndAttacker();
    const ptr = victim.pointer;
    const requests = [
      { method: 'POST', path: '/1.1/installations', body: { deviceType: 'ios', deviceToken: attackerToken, user: [ptr] } },
      { method: 'POST', path: '/1.1/classes/_Installation', body: { deviceType: 'ios', deviceToken: attackerToken, user: { __op: 'AddUnique', objects: [ptr] } } },
      { method: 'PUT', path: `/1.1/installations/${attackerId}`, body: { user: { __op: 'Add', objects: [ptr] } } },
      { method: 'PUT', path: `/1.1/classes/_Installation/${attackerId}`, body: { owners: [ptr] } },
    ];
    const res = await p.h.request('POST', '/1.1/batch', { body: { requests } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const answers = res.body as unknown as { error?: { code?: number } }[];
    expect(answers).toHaveLength(requests.length);
    answers.forEach((answer, n) => expectRefused(answer, `batch entry ${n}`));

    expect(await pushToUser(ptr, 'Batch')).toMatchObject({ devices: 1, successes: 1 });
    expect(p.fakes.apns.deliveriesTo(victimToken)).toHaveLength(1);
    expect(p.fakes.apns.deliveriesTo(attackerToken)).toHaveLength(0);
  });

  it('refuses user as anything but one Pointer to _User even with the master key, which may still nest pointers in other fields', async () => {
    const { victim, attackerId } = await victimAndAttacker();
    const ptr = victim.pointer;
    for (const user of [[ptr], { __op: 'AddUnique', objects: [ptr] }, { __type: 'Pointer', className: 'Player', objectId: victim.objectId }, victim.objectId]) {
      expectRefused(await p.h.request('PUT', `/1.1/installations/${attackerId}`, { master: true, body: { user } }), `master user ${JSON.stringify(user)}`);
    }
    const nested = await p.h.request('PUT', `/1.1/installations/${attackerId}`, { master: true, body: { sharedWith: [ptr] } });
    expect(nested.status, JSON.stringify(nested.body)).toBe(200);
    const moved = await p.h.request('PUT', `/1.1/installations/${attackerId}`, { master: true, body: { user: ptr } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const removed = await p.h.request('PUT', `/1.1/installations/${attackerId}`, { master: true, body: { user: { __op: 'Delete' } } });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
  });
});

describe('installations saved before the rule', () => {
  it('neither pushes to nor lists an installation whose stored user is an array', async () => {
    const victim = await newUser();
    const victimToken = token();
    const saved = await p.h.request('POST', '/1.1/installations', {
      session: victim.sessionToken,
      body: { deviceType: 'ios', deviceToken: victimToken, user: victim.pointer },
    });
    expect(saved.status).toBe(201);
    // What a write accepted before the rule left in the store.
    const planted = iosInstallation(0, p.clock.now(), { deviceToken: token(), user: [victim.pointer], channels: ['planted'] });
    await p.seed([planted]);

    const listed = await p.h.request('GET', `/1.1/installations?where=${encodeURIComponent(JSON.stringify({ user: victim.pointer }))}`, { master: true });
    expect(listed.body.results.map((row: { objectId: string }) => row.objectId)).toEqual([saved.body.objectId]);
    const read = await p.h.request('GET', `/1.1/installations/${planted.objectId}`, { master: true });
    expect(read.body).not.toHaveProperty('user');

    expect(await pushToUser(victim.pointer, 'Legacy')).toMatchObject({ devices: 1, successes: 1 });
    expect(p.fakes.apns.deliveriesTo(victimToken)).toHaveLength(1);
    expect(p.fakes.apns.deliveriesTo(planted.deviceToken as string)).toHaveLength(0);
    // A channel push still reaches it: only the stray user is ignored.
    expect(await p.settled((await p.send({ channels: ['planted'], data: { alert: 'Channel' } })).body.objectId)).toMatchObject({ devices: 1 });
  });
});
