import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/api/openapi/openapi-document.ts';
import { documentedOperations, ResponseSchemas } from '../support/openapi-contract.ts';
import { startTestHerald, type RequestOptions, type TestHerald } from '../support/test-herald.ts';

const document = buildOpenApiDocument();
const operations = documentedOperations(document);
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The named example of an operation's JSON request body. */
function example(method: string, path: string, name: string): Json {
  const operation = operations.find((item) => item.method === method && item.path === path)?.operation;
  const value = operation?.requestBody?.content?.['application/json']?.examples?.[name]?.value as Json | undefined;
  if (value === undefined) throw new Error(`${method} ${path} has no example ${name}`);
  return structuredClone(value);
}

describe('the OpenAPI document against a real Herald', () => {
  let herald: TestHerald;
  const schemas = new ResponseSchemas(document);
  /** `METHOD /path` of every operation called, and the examples sent. */
  const called = new Set<string>();
  const examplesSent = new Set<string>();

  /**
   * Calls an operation as the document writes it (`{name}` filled from
   * `params`) and checks the answer against the document: a documented status
   * and a body of that status's schema. Answers the body.
   */
  async function call(method: string, path: string, options: RequestOptions & { params?: Record<string, string>; query?: string; expect?: number } = {}): Promise<Json> {
    const url = path.replace(/\{(\w+)\}/g, (_whole, name: string) => encodeURIComponent(options.params?.[name] ?? 'missing')) + (options.query ?? '');
    const answer = await herald.request(method, url, options);
    called.add(`${method} ${path}`);
    expect(schemas.problems(method, path, answer.status, answer.body), `${method} ${url}: ${JSON.stringify(answer.body).slice(0, 300)}`).toEqual([]);
    if (options.expect !== undefined) expect(answer.status, `${method} ${url}: ${JSON.stringify(answer.body).slice(0, 300)}`).toBe(options.expect);
    return answer.body;
  }

  /** Sends a named request example of the document. */
  function send(method: string, path: string, name: string, options: Parameters<typeof call>[2] = {}): Promise<Json> {
    examplesSent.add(`${method} ${path} ${name}`);
    return call(method, path, { ...options, body: example(method, path, name) });
  }

  beforeAll(async () => {
    herald = await startTestHerald();
  });
  afterAll(async () => herald?.close());

  it('serves the document at GET /1.1/openapi.json with no key, to any origin', async () => {
    const answer = await fetch(`${herald.baseUrl}/1.1/openapi.json`, { headers: { Origin: 'https://tools.example' } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(await answer.json()).toEqual(JSON.parse(JSON.stringify(document)));
  });

  it('answers every operation as documented, its examples accepted', async () => {
    const user = await send('POST', '/1.1/users', 'password', { expect: 201 });
    const params = { objectId: user.objectId as string };
    const session = user.sessionToken as string;
    await send('POST', '/1.1/users', 'anonymous', { expect: 201 });
    await send('POST', '/1.1/login', 'username', { expect: 200 });
    await send('POST', '/1.1/login', 'smsCode');
    await send('POST', '/1.1/requestSmsCode', 'number', { expect: 200 });
    await send('POST', '/1.1/usersByMobilePhone', 'code');
    await send('POST', '/1.1/requestPasswordReset', 'email', { expect: 200 });
    await send('POST', '/1.1/requestEmailVerify', 'email', { expect: 200 });
    await call('GET', '/1.1/users/me', { session, expect: 200 });
    await call('GET', '/1.1/users', { master: true, query: '?count=1&limit=5', expect: 200 });
    await call('GET', '/1.1/users/{objectId}', { params, expect: 200 });
    await send('PUT', '/1.1/users/{objectId}', 'fields', { params, session, expect: 200 });
    await send('PUT', '/1.1/users/{objectId}', 'unlink', { params, session, expect: 200 });
    await call('GET', '/1.1/classes/_User', { master: true, expect: 200 });
    await call('GET', '/1.1/classes/_User/{objectId}', { params, expect: 200 });
    await call('PUT', '/1.1/classes/_User/{objectId}', { params, session, body: { nickname: 'A' }, query: '?new=true', expect: 200 });
    const refreshed = await call('PUT', '/1.1/users/{objectId}/refreshSessionToken', { params, session, expect: 200 });
    const changed = await send('PUT', '/1.1/users/{objectId}/updatePassword', 'change', { params, session: refreshed.sessionToken as string, expect: 200 });
    const second = await call('POST', '/1.1/classes/_User', { body: { username: 'bob', password: 'bob secret' }, expect: 201 });
    await call('DELETE', '/1.1/classes/_User/{objectId}', { params: { objectId: second.objectId as string }, session: second.sessionToken as string, master: true, expect: 200 });

    const ios = await send('POST', '/1.1/installations', 'ios', { expect: 201 });
    await send('POST', '/1.1/installations', 'android', { expect: 201 });
    const installation = { objectId: ios.objectId as string };
    await send('PUT', '/1.1/installations/{objectId}', 'subscribe', { params: installation, expect: 200 });
    await send('PUT', '/1.1/installations/{objectId}', 'badge', { params: installation, expect: 200 });
    await call('GET', '/1.1/installations/{objectId}', { params: installation, expect: 200 });
    await call('GET', '/1.1/installations', { master: true, query: `?where=${encodeURIComponent('{"channels":"news"}')}`, expect: 200 });
    const aliased = await call('POST', '/1.1/classes/_Installation', { body: { deviceType: 'android', installationId: 'b1f7e5c3-9a2d-4c6e-8f0a-1b2c3d4e5f6a' }, expect: 201 });
    await call('GET', '/1.1/classes/_Installation', { master: true, expect: 200 });
    await call('GET', '/1.1/classes/_Installation/{objectId}', { params: { objectId: aliased.objectId as string }, expect: 200 });
    await call('PUT', '/1.1/classes/_Installation/{objectId}', { params: { objectId: aliased.objectId as string }, body: { timeZone: 'UTC' }, expect: 200 });
    await call('DELETE', '/1.1/classes/_Installation/{objectId}', { params: { objectId: aliased.objectId as string }, master: true, expect: 200 });
    await send('POST', '/1.1/batch', 'saveAll', { expect: 200 });

    const pushed = await send('POST', '/1.1/push', 'channel', { master: true, expect: 201 });
    await send('POST', '/1.1/push', 'where', { master: true, expect: 201 });
    await send('POST', '/1.1/push', 'where', { master: true, expect: 200 });
    await send('POST', '/1.1/push/devices', 'ios', { master: true, expect: 201 });
    await send('POST', '/1.1/push/devices', 'android', { master: true, expect: 201 });
    const record = await call('GET', '/1.1/tables/Notifications/{objectId}', { params: { objectId: pushed.objectId as string }, expect: 200 });
    await call('GET', '/1.1/notifications', { master: true, query: '?count=1', expect: 200 });
    await call('GET', '/1.1/notifications/{notificationId}', { master: true, params: { notificationId: record.notificationId as string }, expect: 200 });
    // The push's delivery log: a page of its entries, why one installation did or did not get it, that installation's entries.
    await call('GET', '/1.1/notifications/{notificationId}/deliveries', { master: true, params: { notificationId: record.notificationId as string }, query: '?limit=10', expect: 200 });
    await call('GET', '/1.1/notifications/{notificationId}/explain', { master: true, params: { notificationId: record.notificationId as string }, query: `?installation=${installation.objectId}`, expect: 200 });
    await call('GET', '/1.1/installations/{objectId}/deliveries', { master: true, params: installation, query: '?outcome=failed,invalidToken', expect: 200 });
    await call('DELETE', '/1.1/notifications/{notificationId}', { master: true, params: { notificationId: record.notificationId as string }, expect: 200 });
    const later = new Date(herald.clock.now() + 3_600_000).toISOString();
    await call('POST', '/1.1/push', { master: true, body: { data: { alert: 'Later' }, push_time: later }, expect: 201 });
    const scheduled = await call('GET', '/1.1/scheduledPushMessages', { master: true, expect: 200 });
    expect(scheduled.results).toHaveLength(1);
    await call('DELETE', '/1.1/scheduledPushMessages/{id}', { master: true, params: { id: String(scheduled.results[0].id) }, expect: 200 });

    await call('GET', '/1.1/verifyEmail/{token}', { params: { token: 'not-a-link' }, expect: 400 });
    await call('GET', '/1.1/resetPassword/{token}', { params: { token: 'not-a-link' }, expect: 400 });
    await call('POST', '/1.1/resetPassword/{token}', { params: { token: 'not-a-link' }, rawBody: 'password=a&confirm=a', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, expect: 400 });
    await call('GET', '/1.1/openapi.json', { expect: 200 });
    await call('GET', '/healthz', { expect: 200 });
    await call('GET', '/readyz', { expect: 200 });
    await call('GET', '/metrics', { expect: 200 });
    await call('DELETE', '/1.1/installations/{objectId}', { params: installation, master: true, expect: 200 });
    await call('GET', '/1.1/classes/_User/{objectId}', { params: { objectId: 'nobody' }, expect: 400 });
    await call('DELETE', '/1.1/users/{objectId}', { params, session: changed.sessionToken as string, master: true, expect: 200 });

    expect([...called].sort()).toEqual(operations.map(({ method, path }) => `${method} ${path}`).sort());
    const allExamples = operations.flatMap(({ method, path, operation }) =>
      Object.keys((operation.requestBody?.content?.['application/json']?.examples ?? {}) as Json).map((name) => `${method} ${path} ${name}`),
    );
    expect([...examplesSent].sort()).toEqual(allExamples.filter((name) => !name.includes('/classes/')).sort());
  });

  it('answers errors as documented: {code, error} of a listed status', async () => {
    const cases: [string, string, RequestOptions & { params?: Record<string, string> }][] = [
      ['POST', '/1.1/users', { body: { username: 'x' } }],
      ['POST', '/1.1/users', { rawBody: '{not json' }],
      ['GET', '/1.1/users', {}],
      ['GET', '/1.1/users/me', {}],
      ['POST', '/1.1/push', { body: { data: { alert: 'x' } } }],
      ['POST', '/1.1/push/devices', { master: true, body: { device_type: 'ios', device_ids: ['nothex'], data: { alert: 'x' } } }],
      ['GET', '/1.1/installations/{objectId}', { params: { objectId: 'unknown' } }],
      ['GET', '/1.1/notifications', { master: true, headers: { 'X-SVC-Key': 'wrong' } }],
      ['DELETE', '/1.1/scheduledPushMessages/{id}', { master: true, params: { id: '7' } }],
      ['POST', '/1.1/batch', { body: { requests: 'all' } }],
      // Both were accepted by the readers before: the first answered 500, the second failed in every sender.
      ['POST', '/1.1/push', { master: true, body: { data: { alert: 'x' }, expiration_interval: 1e300 } }],
      ['POST', '/1.1/push/devices', { master: true, body: { device_type: 'ios', device_ids: ['ab'.repeat(32)], data: { alert: 'x' }, flow_control: 1e300 } }],
    ];
    for (const [method, path, options] of cases) {
      const body = await call(method, path, options);
      expect(Object.keys(body).sort(), `${method} ${path}`).toEqual(['code', 'error']);
    }
  });
});
