import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { people, startConsoleHerald, type ConsoleHerald } from '../support/console-herald.ts';

const running: ConsoleHerald[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((herald) => herald.close()));
});

async function start(options: Parameters<typeof startConsoleHerald>[0]): Promise<ConsoleHerald> {
  const herald = await startConsoleHerald(options);
  running.push(herald);
  return herald;
}

describe('where the console is served', () => {
  it('serves it on a port of its own when console.port is set, and not on the API port', async () => {
    const c = await start({ console: { port: 0 } });
    expect(c.h.herald.consolePort).toBeGreaterThan(0);
    expect(c.h.herald.consolePort).not.toBe(c.h.herald.port);
    const client = new ConsoleClient(c.consoleUrl, c.origin);
    expect((await client.signIn(people.admin)).status).toBe(303);
    expect((await client.get('/')).text).toContain('Main App');
    const onApi = await fetch(`${c.h.baseUrl}/console/sign-in`);
    expect(onApi.status).toBe(404);
    // The API itself is where it was.
    expect((await c.h.request('GET', '/1.1/users/me')).status).toBe(403);
  });

  it('serves no console at all when console.enabled is false', async () => {
    const c = await start({ console: { enabled: false } });
    const answer = await fetch(`${c.h.baseUrl}/console/sign-in`);
    expect(answer.status).toBe(404);
    expect(await answer.json()).toEqual({ code: 1, error: 'Unknown endpoint: GET /console/sign-in' });
  });

  it('marks the session cookie Secure when a trusted proxy says the request came over TLS, and only then', async () => {
    const trusting = await start({ console: { trustProxy: 1 } });
    const behindProxy = new ConsoleClient(trusting.consoleUrl, 'https://console.example.test');
    const viaTls = await behindProxy.get('/sign-in', { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'console.example.test' });
    expect(viaTls.headers.getSetCookie()[0]).toMatch(/; Secure/);
    const viaHttp = await new ConsoleClient(trusting.consoleUrl, trusting.origin).get('/sign-in');
    expect(viaHttp.headers.getSetCookie()[0]).not.toMatch(/Secure/);
    const untrusting = await start({});
    const spoofed = await new ConsoleClient(untrusting.consoleUrl, untrusting.origin).get('/sign-in', { 'X-Forwarded-Proto': 'https' });
    expect(spoofed.headers.getSetCookie()[0]).not.toMatch(/Secure/);
  });
});
