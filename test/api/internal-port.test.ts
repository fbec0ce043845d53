import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';

describe('the internal port', () => {
  let h: TestHerald;
  let internal: string;
  beforeAll(async () => {
    h = await startTestHerald({ internalPort: 0 });
    internal = `http://127.0.0.1:${h.herald.internalPort}`;
  });
  afterAll(() => h?.close());

  it('serves /metrics, /healthz and /readyz, and nothing else', async () => {
    expect((await fetch(`${internal}/healthz`)).status).toBe(200);
    const ready = await fetch(`${internal}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ok', checks: { store: { status: 'ok' } } });
    const metrics = await (await fetch(`${internal}/metrics`)).text();
    expect(metrics).toContain('herald_http_request_duration_seconds');
    expect((await fetch(`${internal}/1.1/users/me`)).status).toBe(404);
  });

  it('keeps them off the public port, which still serves the API', async () => {
    for (const path of ['/metrics', '/healthz', '/readyz']) {
      const res = await fetch(`${h.baseUrl}${path}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ code: 1 });
    }
    expect((await h.request('POST', '/1.1/users', { body: { username: `internal${Date.now()}`, password: 'pw' } })).status).toBe(201);
    // Requests to the public port are still measured, and read on the internal one.
    expect(await (await fetch(`${internal}/metrics`)).text()).toMatch(/herald_http_request_duration_seconds_count\{[^}]*route="\/1\.1\/users"/);
  });
});
