import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';

let h: TestHerald;
beforeAll(async () => {
  h = await startTestHerald();
});
afterAll(() => h.close());

describe('HTTP basics', () => {
  it('answers CORS preflights without credentials and exposes Location', async () => {
    const res = await fetch(`${h.baseUrl}/1.1/users`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'x-svc-id,x-svc-key,content-type' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')).toContain('x-svc-key');
    const reg = await fetch(`${h.baseUrl}/1.1/users`, {
      method: 'POST',
      headers: { Origin: 'https://app.example.com', 'X-SVC-Id': h.app.id, 'X-SVC-Key': h.app.key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'cors-user', password: 'p' }),
    });
    expect(reg.status).toBe(201);
    expect(reg.headers.get('access-control-expose-headers')).toContain('Location');
  });

  it('reports health and readiness with each dependency named', async () => {
    const running = { state: 'running' };
    const roles = {
      sender: { ...running, detail: { partitions: expect.any(Object) } },
      fanout: { ...running, detail: { partitions: expect.any(Object) } },
      api: running,
      scheduler: { ...running, detail: { leading: expect.any(Boolean) } },
    };
    expect(await (await fetch(`${h.baseUrl}/healthz`)).json()).toEqual({ status: 'ok', roles });
    const ready = await fetch(`${h.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', checks: { store: { status: 'ok' }, coordination: { status: 'ok' }, bus: { status: 'ok' } }, roles });
  });
});

describe('when the store is gone', () => {
  it('answers 503 with code 503 and keeps serving', async () => {
    const broken = await startTestHerald();
    try {
      await broken.herald.runtime.store.close();
      const res = await broken.request('POST', '/1.1/login', { body: { username: 'x', password: 'y' } });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ code: 503, error: expect.stringMatching(/unavailable/i) });
      expect(res.headers.get('retry-after')).toBeTruthy();
      const ready = await fetch(`${broken.baseUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { checks: { store: { status: string } } }).checks.store.status).toBe('unavailable');
      expect((await fetch(`${broken.baseUrl}/healthz`)).status).toBe(200);
    } finally {
      await broken.close();
    }
  });
});

describe('metrics', () => {
  it('exposes request timings by route template and status, never by raw path', async () => {
    const reg = await h.request('POST', '/1.1/users', { body: { username: 'metered', password: 'p' } });
    await h.request('GET', `/1.1/users/${reg.body.objectId}`);
    await h.request('GET', '/1.1/users/000000000000000000000000');
    const res = await fetch(`${h.baseUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toMatch(/herald_http_request_duration_seconds_count\{method="POST",route="\/1\.1\/users",status="201"\} [1-9]/);
    expect(text).toMatch(/herald_http_request_duration_seconds_count\{method="GET",route="\/1\.1\/users\/:objectId",status="200"\} [1-9]/);
    expect(text).toMatch(/herald_http_request_duration_seconds_count\{method="GET",route="\/1\.1\/users\/:objectId",status="400"\} [1-9]/);
    expect(text).not.toContain(reg.body.objectId);
    expect(text).toContain('herald_process_cpu_seconds_total');
  });
});
