import { resolve } from 'node:path';
import { Metadata, credentials, loadPackageDefinition, status, type Client, type ClientDuplexStream } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.ts';
import { OutageLog } from '../../src/api/outage-log.ts';
import { GrpcServer } from '../../src/grpc/grpc-server.ts';
import { protoLoaderOptions } from '../../src/grpc/proto-files.ts';
import { Readiness } from '../../src/runtime/readiness.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { memoryLogger } from '../support/memory-logger.ts';
import { startTestHerald, type TestHerald } from '../support/test-herald.ts';
import { HealthClient, PushClient, cancelStream, nextMessage, readStream } from './support/grpc-clients.ts';

let h: TestHerald;
beforeAll(async () => {
  h = await startTestHerald();
});
afterAll(async () => {
  await h?.close();
});

/** A required backend whose answer the test sets, as test/runtime/readiness.test.ts injects one. */
function switchableBackend() {
  let down = false;
  return {
    dependency: { name: 'store', required: true, check: () => (down ? Promise.reject(new Error('connection refused')) : Promise.resolve()) },
    set down(value: boolean) {
      down = value;
    },
  };
}

/** A gRPC server over the Herald's push rules whose readiness hangs on `backend`, reading it every 50 ms. */
async function serverOver(backend: ReturnType<typeof switchableBackend>, logger = silentLogger()) {
  const { push, apps } = h.herald.runtime;
  const health = new Readiness([backend.dependency], { clock: new ManualClock(), cacheMs: 0 });
  const server = new GrpcServer({ push, apps, health, logger, outages: new OutageLog(logger) }, { healthIntervalMs: 50, closeTimeoutMs: 1000 });
  const port = await server.start(0, '127.0.0.1');
  return { server, port };
}

describe('grpc.health.v1.Health of the api role', () => {
  it('answers SERVING for the server and the push service once the roles run, and NOT_FOUND for an unknown service', async () => {
    const health = new HealthClient(h.grpcPort as number);
    try {
      await expect.poll(() => health.check(''), { timeout: 10_000, message: 'the server to report SERVING' }).toBe('SERVING');
      expect(await health.check('herald.v1.PushService')).toBe('SERVING');
      await expect(health.check('herald.v1.Nothing')).rejects.toMatchObject({ code: status.NOT_FOUND });
    } finally {
      health.close();
    }
  });
});

describe('health that follows readiness', () => {
  it('turns NOT_SERVING while a required backend is down and SERVING when it is back, for Check and Watch', async () => {
    const backend = switchableBackend();
    const { server, port } = await serverOver(backend);
    const health = new HealthClient(port);
    const watch = health.watch('herald.v1.PushService');
    try {
      await nextMessage(watch, (message) => message.status === 'SERVING', { what: 'Watch to report SERVING' });
      expect(await health.check('')).toBe('SERVING');

      backend.down = true;
      await nextMessage(watch, (message) => message.status === 'NOT_SERVING', { what: 'Watch to report NOT_SERVING with the store down' });
      expect(await health.check('')).toBe('NOT_SERVING');
      expect(await health.check('herald.v1.PushService')).toBe('NOT_SERVING');

      backend.down = false;
      await nextMessage(watch, (message) => message.status === 'SERVING', { what: 'Watch to report SERVING again' });
      expect(await health.check('')).toBe('SERVING');
    } finally {
      cancelStream(watch);
      health.close();
      await server.close();
    }
  });

  it('turns NOT_SERVING when the server closes, ends open watches, and closes once however often asked', async () => {
    const { server, port } = await serverOver(switchableBackend());
    const health = new HealthClient(port);
    const push = new PushClient(port, h.app);
    try {
      const healthWatch = health.watch('');
      await nextMessage(healthWatch, (message) => message.status === 'SERVING', { what: 'Watch to report SERVING' });
      const healthEnd = readStream(healthWatch, { what: 'the health watch to end on close' });
      const scheduled = await push.call('SendPush', { data: JSON.stringify({ alert: 'Later' }), channels: ['close'], push_time: new Date(h.clock.now() + 600_000).toISOString() });
      const pushWatch = push.watch(scheduled.object_id);
      await nextMessage(pushWatch, (message) => message.status === 'scheduled', { what: 'the push watch to report the push' });
      const pushEnd = readStream(pushWatch, { what: 'the push watch to end on close' });

      await Promise.all([server.close(), server.close()]);
      expect((await pushEnd).failure).toMatchObject({ code: status.UNAVAILABLE, heraldCode: 503, detail: { retryable: true } });
      const { messages } = await healthEnd;
      expect(messages.at(-1)).toEqual({ status: 'NOT_SERVING' });
      await server.close();
      await expect(health.check('')).rejects.toMatchObject({ code: status.UNAVAILABLE });
    } finally {
      health.close();
      push.close();
      await server.close();
    }
  });

  it('logs the port it listens on', async () => {
    const { logger, lines } = memoryLogger('info');
    const { server, port } = await serverOver(switchableBackend(), logger);
    await server.close();
    expect(lines).toContainEqual(expect.objectContaining({ port, msg: 'grpc listening' }));
  });
});

describe('server reflection', () => {
  it('lists the push and health services, so grpcurl needs no proto files', async () => {
    const reflectionProto = resolve(import.meta.dirname, '../../node_modules/@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto');
    type ReflectionClient = Client & { ServerReflectionInfo(metadata: Metadata): ClientDuplexStream<object, Record<string, unknown>> };
    const packages = loadPackageDefinition(loadSync(reflectionProto, protoLoaderOptions)) as unknown as {
      grpc: { reflection: { v1: { ServerReflection: new (address: string, creds: ReturnType<typeof credentials.createInsecure>) => ReflectionClient } } };
    };
    const client = new packages.grpc.reflection.v1.ServerReflection(`127.0.0.1:${h.grpcPort}`, credentials.createInsecure());
    try {
      const stream = client.ServerReflectionInfo(new Metadata());
      const answer = nextMessage(stream, () => true, { what: 'the list of services' });
      stream.write({ list_services: '' });
      const services = ((await answer).list_services_response as { service: { name: string }[] }).service.map((service) => service.name);
      stream.end();
      expect(services).toEqual(expect.arrayContaining(['herald.v1.PushService', 'grpc.health.v1.Health']));
    } finally {
      client.close();
    }
  });
});
