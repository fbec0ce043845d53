import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import type { BenchApp } from './bench-server.ts';
import { chunks } from '../../src/core/chunks.ts';
import { InstallationScenarios } from './installation-scenarios.ts';

export interface ScenarioResult {
  scenario: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  connections: number;
  durationSeconds: number;
}

export interface LoadOptions {
  duration: number;
  connections: number;
}

/**
 * GET /1.1/users/me, an installation's first save and its saves after,
 * login and registration, against one running server, one after another.
 */
export async function runScenarios(port: number, app: BenchApp, load: LoadOptions): Promise<ScenarioResult[]> {
  const base = `http://127.0.0.1:${port}`;
  const headers = { 'X-SVC-Id': app.id, 'X-SVC-Key': app.key, 'Content-Type': 'application/json' };
  const reg = await fetch(`${base}/1.1/users`, { method: 'POST', headers, body: JSON.stringify({ username: 'bench-user', password: 'bench-pass' }) });
  if (reg.status !== 201) throw new Error(`registering the bench user answered ${reg.status}: ${await reg.text()}`);
  const { sessionToken } = (await reg.json()) as { sessionToken: string };

  const run = async (scenario: string, options: autocannon.Options): Promise<ScenarioResult> => {
    const result = await autocannon({ duration: load.duration, connections: load.connections, ...options });
    return {
      scenario,
      requestsPerSecond: Math.round(result.requests.average),
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      requests: result.requests.total,
      non2xx: result.non2xx,
      errors: result.errors,
      connections: load.connections,
      durationSeconds: load.duration,
    };
  };

  const results: ScenarioResult[] = [];
  results.push(await run('GET /1.1/users/me', { url: `${base}/1.1/users/me`, headers: { ...headers, 'X-SVC-Session': sessionToken } }));
  // Before login and registration, whose password hashing keeps the CPU busy for a while after them.
  const devices = new InstallationScenarios();
  const installations = { url: `${base}/1.1/installations`, method: 'POST' as const, headers };
  results.push(await run(createScenario, { ...installations, requests: devices.creates() }));
  results.push(await run(resaveScenario, { ...installations, requests: devices.resaves() }));
  // Logins take turns over many users: an account sees at most one or two at once, as in real traffic. All on one
  // account, the attempts in flight fill its failure window and the rest are refused (code 219): the rate of refusals.
  const prefix = randomBytes(4).toString('hex');
  const loginUsers = await registerUsers(base, headers, `l${prefix}`, Math.max(64, load.connections * 2));
  let nextLogin = 0;
  results.push(
    await run('POST /1.1/login', {
      url: `${base}/1.1/login`,
      method: 'POST',
      headers,
      requests: [{ setupRequest: (request) => ({ ...request, body: JSON.stringify({ username: loginUsers[nextLogin++ % loginUsers.length], password: 'bench-pass' }) }) }],
    }),
  );
  let next = 0;
  results.push(
    await run('POST /1.1/users (register)', {
      url: `${base}/1.1/users`,
      method: 'POST',
      headers,
      requests: [{ setupRequest: (request) => ({ ...request, body: JSON.stringify({ username: `u${prefix}${next++}`, password: 'bench-pass' }) }) }],
    }),
  );
  return results;
}

export const createScenario = 'POST /1.1/installations (new)';
export const resaveScenario = 'POST /1.1/installations (re-save)';

/** Registers `count` users named `<prefix><n>` with the bench password, four at a time; answers their usernames. */
async function registerUsers(base: string, headers: Record<string, string>, prefix: string, count: number): Promise<string[]> {
  const usernames = Array.from({ length: count }, (_, index) => `${prefix}${index}`);
  for (const four of chunks(usernames, 4)) {
    await Promise.all(
      four.map(async (username) => {
        const response = await fetch(`${base}/1.1/users`, { method: 'POST', headers, body: JSON.stringify({ username, password: 'bench-pass' }) });
        if (response.status !== 201) throw new Error(`registering ${username} answered ${response.status}: ${await response.text()}`);
      }),
    );
  }
  return usernames;
}
