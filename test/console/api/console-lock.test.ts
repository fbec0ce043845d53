import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisCoordination } from '../../support/test-herald.ts';
import { ConsoleClient, csrfOf, type ConsoleAnswer } from '../support/console-client.ts';
import { people, startConsoleHerald, type ConsoleHerald } from '../support/console-herald.ts';

/** Sign-in forms fetched one by one, then posted all at once, as a burst from many browsers. */
async function burst(nodes: ConsoleHerald[], count: number, username: string, password: string): Promise<ConsoleAnswer[]> {
  const ready = [];
  for (let index = 0; index < count; index += 1) {
    const node = nodes[index % nodes.length] as ConsoleHerald;
    const client = new ConsoleClient(node.consoleUrl, node.origin);
    ready.push({ client, csrf: csrfOf((await client.get('/sign-in')).text) });
  }
  return Promise.all(ready.map(({ client, csrf }) => client.post('/sign-in', { username, password }, { csrf })));
}

const statuses = (answers: ConsoleAnswer[]) => answers.map((answer) => answer.status).sort();

describe('sign-in attempts under the login lock', () => {
  let c: ConsoleHerald;

  beforeAll(async () => {
    c = await startConsoleHerald();
  });

  afterAll(async () => {
    await c?.close();
  });

  it('checks at most 6 passwords of a username in a burst of 30, then refuses even the right one for 15 minutes', async () => {
    const answers = await burst([c], 30, people.operator.username, 'a-wrong-password');
    expect(statuses(answers)).toEqual([...Array(6).fill(401), ...Array(24).fill(429)]);
    const locked = await new ConsoleClient(c.consoleUrl, c.origin).signIn(people.operator);
    expect(locked.status).toBe(429);
    expect(locked.text).toContain('Too many failed sign-ins for this username.');
    // Another username is not held back by it.
    expect((await new ConsoleClient(c.consoleUrl, c.origin).signIn(people.viewer)).status).toBe(303);
    c.clock.advance(15 * 60_000 + 1);
    expect((await new ConsoleClient(c.consoleUrl, c.origin).signIn(people.operator)).status).toBe(303);
  });

  it('lets in every one of a burst of 10 sign-ins with the right password: only failures lock', async () => {
    const answers = await burst([c], 10, people.viewer.username, people.viewer.password);
    expect(statuses(answers)).toEqual(Array(10).fill(303));
  });

  it('locks an unknown username the same way, so a burst tells nothing about which names exist', async () => {
    const answers = await burst([c], 12, 'nobody-here', 'whatever-password');
    expect(statuses(answers)).toEqual([...Array(6).fill(401), ...Array(6).fill(429)]);
  });

  it('keeps console usernames apart from the users of an app named alike', async () => {
    const user = await c.h.request('POST', '/1.1/users', { body: { username: people.admin.username, password: 'app-user-password' } });
    expect(user.status).toBe(201);
    for (let attempt = 0; attempt < 7; attempt += 1) await c.h.request('POST', '/1.1/login', { body: { username: people.admin.username, password: 'wrong' } });
    expect((await c.h.request('POST', '/1.1/login', { body: { username: people.admin.username, password: 'app-user-password' } })).body.code).toBe(219);
    expect((await new ConsoleClient(c.consoleUrl, c.origin).signIn(people.admin)).status).toBe(303);
  });
});

describe('two API nodes sharing their coordination store', () => {
  let a: ConsoleHerald;
  let b: ConsoleHerald;

  beforeAll(async () => {
    const coordination = redisCoordination();
    [a, b] = await Promise.all([startConsoleHerald({ coordination }), startConsoleHerald({ coordination })]);
  });

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  it('check at most 6 passwords of a username between them in a burst of 30 spread over both', async () => {
    const answers = await burst([a, b], 30, people.viewer.username, 'a-wrong-password');
    expect(statuses(answers)).toEqual([...Array(6).fill(401), ...Array(24).fill(429)]);
    expect((await new ConsoleClient(b.consoleUrl, b.origin).signIn(people.viewer)).status).toBe(429);
  });

  it('honour a session made on the other node, and end it everywhere from either', async () => {
    const onA = new ConsoleClient(a.consoleUrl, a.origin);
    expect((await onA.signIn(people.operator)).status).toBe(303);
    const onB = new ConsoleClient(b.consoleUrl, b.origin);
    for (const [name, value] of onA.cookies) onB.cookies.set(name, value);
    onB.csrf = onA.csrf;
    expect((await onB.get('/')).status).toBe(200);
    expect((await onB.post('/sign-out-everywhere', {})).status).toBe(303);
    expect((await onA.get('/')).status).toBe(303);
  });
});
