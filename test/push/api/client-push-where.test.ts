import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.ts';
import { deviceToken } from '../../support/gateways/gateway-fixtures.ts';
import { testApp, type TestResponse } from '../../support/test-herald.ts';
import { startPushHerald, type PushHerald } from '../support/push-herald.ts';

let p: PushHerald;
/** Clients may send pushes; device tokens are shown to the master key only. */
const openApp = testApp({ settings: { clientPushAllowed: true, protectedFields: { _Installation: ['deviceToken', 'owner'] } } });
const token = deviceToken(41);

beforeAll(async () => {
  p = await startPushHerald({ extraApps: (fakes) => [{ ...openApp, push: fakes.appPush }] });
  const saved = await p.h.request('POST', '/1.1/installations', { app: openApp, body: { deviceType: 'ios', deviceToken: token, channels: ['closed'], owner: 'ann' } });
  expect(saved.status, JSON.stringify(saved.body)).toBe(201);
});
afterAll(async () => {
  await p?.close();
});

const data = { alert: 'Hi' };

function clientPush(body: Record<string, unknown>): Promise<TestResponse> {
  return p.h.request('POST', '/1.1/push', { app: openApp, body });
}

/** The open app's push record once it is done, as the app key reads it. */
async function settledRecord(objectId: string): Promise<Record<string, unknown>> {
  const read = async () => (await p.h.request('GET', `/1.1/tables/Notifications/${objectId}`, { app: openApp })).body;
  return eventually(`push ${objectId} done`, read, (record) => record.status === 'done');
}

async function openAppRecords(): Promise<number> {
  const res = await p.h.request('GET', '/1.1/notifications?count=1&limit=0', { app: openApp, master: true });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.count as number;
}

describe('the where of a push sent with the app key', () => {
  const forbidden = (field: string) => ({ code: 403, error: `${field} is a protected field: only the master key may query or sort on it.` });
  const reserved = (field: string) => ({ code: 105, error: `cannot query or sort on ${field}` });

  it.each([
    { what: 'a $regex on a protected field', where: { deviceToken: { $regex: `^${token.slice(0, 2)}` } }, status: 403, body: forbidden('deviceToken') },
    { what: 'equality on a protected field', where: { owner: 'ann' }, status: 403, body: forbidden('owner') },
    { what: 'a protected field inside $or', where: { $or: [{ channels: 'x' }, { $and: [{ deviceToken: { $exists: true } }] }] }, status: 403, body: forbidden('deviceToken') },
    { what: 'a protected field in a where given as text', where: JSON.stringify({ 'owner.name': 'ann' }), status: 403, body: forbidden('owner') },
    { what: 'a reserved _ field', where: { _hidden: { $exists: true } }, status: 400, body: reserved('_hidden') },
    { what: 'a reserved _ field beside a channel', where: { channels: 'closed', _hidden: 1 }, status: 400, body: reserved('_hidden') },
  ])('refuses $what, and makes no record', async ({ where, status, body }) => {
    const records = await openAppRecords();
    const res = await clientPush({ where, data });
    expect({ status: res.status, body: res.body }).toEqual({ status, body });
    expect(await openAppRecords()).toBe(records);
  });

  it('takes a where on open fields, as before', async () => {
    const res = await clientPush({ where: { deviceType: 'ios' }, channels: ['closed'], data });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await settledRecord(res.body.objectId)).toMatchObject({ devices: 1 });
  });

  it('leaves master-key pushes free to target protected fields', async () => {
    const res = await p.h.request('POST', '/1.1/push', { app: openApp, master: true, body: { where: { deviceToken: { $regex: `^${token.slice(0, 2)}` }, owner: 'ann' }, data } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await settledRecord(res.body.objectId)).toMatchObject({ devices: 1 });
  });
});
