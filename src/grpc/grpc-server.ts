import { dirname } from 'node:path';
import { Server, ServerCredentials, type ServiceDefinition } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import type { AppRegistry } from '../accounts/app-registry.ts';
import type { OutageLog } from '../api/outage-log.ts';
import type { Logger } from '../core/logger.ts';
import type { PushDeps } from '../push/push-deps.ts';
import type { Readiness } from '../runtime/readiness.ts';
import { GrpcHealth } from './grpc-health.ts';
import { heraldProtoFiles, protoLoaderOptions } from './proto-files.ts';
import { pushServiceHandlers } from './push-service.ts';

export interface GrpcServerDeps {
  push: PushDeps;
  apps: AppRegistry;
  /** What the health service reports (the process's readiness, as `/readyz`). */
  health: Readiness;
  logger: Logger;
  /** Where refusals for a backend outage are told (shared with the REST API). */
  outages: OutageLog;
}

export interface GrpcServerOptions {
  /** How often WatchPush reads a watched record; default 500 ms. */
  watchIntervalMs?: number;
  /** How often the health service reads readiness; default 1000 ms. */
  healthIntervalMs?: number;
  /** How long `close` lets calls finish before cancelling them; default 5000 ms. */
  closeTimeoutMs?: number;
}

/** The folder holding `health/v1/health.proto`, so that reflection describes the health service too. */
const healthProtoRoot = dirname(dirname(dirname(healthProtoPath)));

/**
 * The api role's gRPC server for trusted backends: `herald.v1.PushService`,
 * the standard `grpc.health.v1.Health`, and server reflection (so grpcurl
 * needs no proto files). Plaintext HTTP/2, like the REST port: TLS is for the
 * load balancer in front.
 */
export class GrpcServer {
  readonly #deps: GrpcServerDeps;
  readonly #options: Required<GrpcServerOptions>;
  readonly #closing = new AbortController();
  readonly #health: GrpcHealth;
  #server: Server | undefined;
  #port: number | undefined;
  #closed: Promise<void> | undefined;

  constructor(deps: GrpcServerDeps, options: GrpcServerOptions = {}) {
    this.#deps = deps;
    this.#options = { watchIntervalMs: options.watchIntervalMs ?? 500, healthIntervalMs: options.healthIntervalMs ?? 1000, closeTimeoutMs: options.closeTimeoutMs ?? 5000 };
    this.#health = new GrpcHealth(deps.health, { intervalMs: this.#options.healthIntervalMs });
  }

  /** The bound port, once listening. */
  get port(): number | undefined {
    return this.#port;
  }

  /** Listens on `host:port` (port 0: a free one) and answers the bound port. */
  async start(port: number, host: string): Promise<number> {
    const logger = this.#deps.logger;
    const definition = loadSync([...heraldProtoFiles, 'health/v1/health.proto'], { ...protoLoaderOptions, includeDirs: [...(protoLoaderOptions.includeDirs ?? []), healthProtoRoot] });
    const server = new Server();
    const calls = { push: this.#deps.push, apps: this.#deps.apps, logger, outages: this.#deps.outages };
    server.addService(definition['herald.v1.PushService'] as ServiceDefinition, pushServiceHandlers(calls, { intervalMs: this.#options.watchIntervalMs, closing: this.#closing.signal }));
    this.#health.addToServer(server);
    new ReflectionService(definition).addToServer(server);
    this.#server = server;
    this.#health.start();
    const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    this.#port = await new Promise<number>((resolve, reject) => {
      server.bindAsync(address, ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound)));
    });
    logger.info({ port: this.#port, host }, 'grpc listening');
    return this.#port;
  }

  /**
   * Stops taking calls: health turns NOT_SERVING, open WatchPush streams end
   * with UNAVAILABLE, calls in flight get `closeTimeoutMs` to finish, then
   * whatever is left (a health Watch, say) is cancelled. Idempotent.
   */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#health.stop();
      this.#closing.abort();
      const server = this.#server;
      if (server === undefined) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, this.#options.closeTimeoutMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    })();
    return this.#closed;
  }
}
