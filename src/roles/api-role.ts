import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpApp } from '../api/http-app.ts';
import { OutageLog } from '../api/outage-log.ts';
import type { HeraldConsole } from '../console/console-app.ts';
import type { ConsoleServer } from '../console/console-server.ts';
import type { GrpcServer } from '../grpc/grpc-server.ts';
import type { Runtime } from '../runtime/create-runtime.ts';
import { RoleLifecycle } from './role-lifecycle.ts';
import type { Role, RoleStatus } from './role.ts';

/** The stateless front: `/1.1/*` over HTTP, emailed pages, health; and the gRPC API for backends on its own port. */
export class ApiRole implements Role {
  readonly name = 'api';
  readonly #runtime: Runtime;
  readonly #lifecycle = new RoleLifecycle();
  #server: Server | undefined;
  #port: number | undefined;
  #grpc: GrpcServer | undefined;
  #console: HeraldConsole | undefined;
  #consoleServer: ConsoleServer | undefined;
  #consolePort: number | undefined;

  constructor(runtime: Runtime) {
    this.#runtime = runtime;
  }

  /** The bound HTTP port once started (useful with port 0). */
  get port(): number | undefined {
    return this.#port;
  }

  /** The bound port of the console when it has a port of its own (`console.port`). */
  get consolePort(): number | undefined {
    return this.#consolePort;
  }

  /** The bound gRPC port once started; undefined when `grpcPort` is `off`. */
  get grpcPort(): number | undefined {
    return this.#grpc?.port;
  }

  start(): Promise<void> {
    return this.#lifecycle.start(() => this.#listen());
  }

  status(): RoleStatus {
    return this.#lifecycle.status();
  }

  /** Stops accepting connections and waits for in-flight requests; `/readyz` answers 503 meanwhile. */
  close(): Promise<void> {
    return this.#lifecycle.close(async () => {
      const server = this.#server;
      const http =
        server === undefined
          ? undefined
          : new Promise<void>((resolve) => {
              server.close(() => resolve());
              server.closeIdleConnections();
            });
      // Open console event streams end first, or the HTTP server would wait for them.
      this.#console?.close();
      await Promise.all([http, this.#grpc?.close(), this.#consoleServer?.close()]);
    });
  }

  async #listen(): Promise<void> {
    const { config, logger, accounts, push, apps, metrics } = this.#runtime;
    const apiLogger = logger.child({ role: 'api' });
    // One outage log for both transports: an outage is told once, whichever API refused for it.
    const outages = new OutageLog(apiLogger);
    if (config.console.enabled) {
      // Loaded only when served, as gRPC is.
      const { createConsole } = await import('../console/console-app.ts');
      this.#console = createConsole({ config: config.console, apps, accounts, push, watchIntervalMs: config.grpcWatchIntervalMs, metrics });
    }
    const app = createHttpApp({
      accounts,
      push,
      apps,
      logger: apiLogger,
      outages,
      bodyLimitBytes: config.bodyLimitBytes,
      health: this.#runtime.health,
      metrics,
      serveOperations: config.internalPort === undefined,
      auth: config.auth,
      clock: this.#runtime.clock,
      console: config.console.port === undefined ? this.#console?.app : undefined,
    });
    const server = createServer(app);
    server.keepAliveTimeout = 65_000;
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
    this.#port = (server.address() as AddressInfo).port;
    logger.info({ role: 'api', port: this.#port }, 'api listening');
    if (this.#console !== undefined && config.console.port !== undefined) {
      const { ConsoleServer } = await import('../console/console-server.ts');
      this.#consoleServer = new ConsoleServer(this.#console, apiLogger);
      this.#consolePort = await this.#consoleServer.start(config.console.port, config.console.host ?? config.host);
    }
    if (config.grpcPort === 'off') return;
    // Loaded only when served: a process without the api role, or with gRPC off, never pays for grpc-js.
    const { GrpcServer } = await import('../grpc/grpc-server.ts');
    this.#grpc = new GrpcServer({ push, apps, health: this.#runtime.health, logger: apiLogger, outages }, { watchIntervalMs: config.grpcWatchIntervalMs });
    await this.#grpc.start(config.grpcPort, config.host);
  }
}
