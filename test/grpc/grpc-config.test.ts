import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.ts';
import { startTestHerald } from '../support/test-herald.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'herald-grpc-config-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function grpcSettings(env: Record<string, string>) {
  const { config } = loadConfig({ env: { HERALD_DATA_DIR: dataDir, ...env } });
  return { grpcPort: config.grpcPort, grpcWatchIntervalMs: config.grpcWatchIntervalMs };
}

describe('the gRPC settings', () => {
  it('default to port 50051 and a watch read every 500 ms', () => {
    expect(grpcSettings({})).toEqual({ grpcPort: 50051, grpcWatchIntervalMs: 500 });
  });

  it('take a port, 0 for a free one, or off from the environment', () => {
    expect(grpcSettings({ HERALD_GRPC_PORT: '7070' }).grpcPort).toBe(7070);
    expect(grpcSettings({ HERALD_GRPC_PORT: '0' }).grpcPort).toBe(0);
    expect(grpcSettings({ HERALD_GRPC_PORT: 'off' }).grpcPort).toBe('off');
    expect(grpcSettings({ HERALD_GRPC_WATCH_INTERVAL_MS: '1000' }).grpcWatchIntervalMs).toBe(1000);
  });

  it.each([
    ['HERALD_GRPC_PORT', 'none', /HERALD_GRPC_PORT \(grpcPort\): a port number from 0 to 65535, or off/],
    ['HERALD_GRPC_PORT', '70000', /HERALD_GRPC_PORT \(grpcPort\)/],
    ['HERALD_GRPC_WATCH_INTERVAL_MS', '10', /HERALD_GRPC_WATCH_INTERVAL_MS \(grpcWatchIntervalMs\)/],
  ])('refuse %s=%s, naming the variable', (name, value, message) => {
    expect(() => grpcSettings({ [name]: value })).toThrow(message);
  });
});

it('serves no gRPC when the port is off, and REST as ever', async () => {
  const h = await startTestHerald({ grpcPort: 'off' });
  try {
    expect(h.grpcPort).toBeUndefined();
    expect((await h.request('GET', '/1.1/scheduledPushMessages', { master: true })).body).toEqual({ results: [] });
  } finally {
    await h.close();
  }
});
