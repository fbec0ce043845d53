import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHeraldProcess, type HeraldProcess } from '../support/herald-process.ts';
import { testApp } from '../support/test-herald.ts';
import { HealthClient, PushClient, masterMetadata } from './support/grpc-clients.ts';

const app = testApp();
let herald: HeraldProcess;
beforeAll(async () => {
  herald = await startHeraldProcess({
    HERALD_DATA_DIR: mkdtempSync(join(tmpdir(), 'herald-grpc-')),
    HERALD_APP_ID: app.id,
    HERALD_APP_KEY: app.key,
    HERALD_MASTER_KEY: app.masterKey,
  });
});
afterAll(() => {
  herald?.kill();
});

it('serves gRPC from the entry point npm start runs, on the port it logs, and stops cleanly on SIGTERM', async () => {
  expect(herald.grpcPort).toBeGreaterThan(0);
  expect(herald.grpcPort).not.toBe(herald.port);
  expect(herald.stdout()).toMatch(new RegExp(`"port":${herald.grpcPort}[^\\n]*"msg":"grpc listening"`));

  const health = new HealthClient(herald.grpcPort);
  const push = new PushClient(herald.grpcPort, app);
  try {
    await expect.poll(() => health.check(''), { timeout: 10_000, message: 'the process to report SERVING' }).toBe('SERVING');
    const sent = await push.call('SendToDevices', { device_type: 'android', device_ids: ['process-a1'], data: JSON.stringify({ alert: 'From a backend' }) });
    const record = await push.call('GetPush', { object_id: sent.object_id });
    expect(record).toMatchObject({ object_id: sent.object_id, device_type: 'android', device_ids: ['process-a1'] });
    const wrongKey = masterMetadata(app, { 'x-svc-id': app.id, 'x-svc-key': 'not-the-master-key,master' });
    expect(await push.failure('GetPush', { object_id: sent.object_id }, wrongKey)).toMatchObject({ code: status.UNAUTHENTICATED, heraldCode: 401 });
  } finally {
    health.close();
    push.close();
  }
  expect(await herald.stop()).toBe(0);
});
