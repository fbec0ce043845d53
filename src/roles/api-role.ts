import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpApp } from '../api/http-app.ts';
import type { Runtime } from '../runtime/create-runtime.ts';
import { RoleLifecycle } from './role-lifecycle.ts';
import type { Role, RoleStatus } from './role.ts';

/** The stateless HTTP front: `/1.1/*`, emailed pages, health. */
export class ApiRole implements Role {
  readonly name = 'api';
  readonly #runtime: Runtime;
  readonly #lifecycle = new RoleLifecycle();
  #server: Server | undefined;
  #port: number | undefined;

  constructor(runtime: Runtime) {
    this.#runtime = runtime;
  }

  /** The bound HTTP port once started (useful with port 0). */
  get port(): number | undefined {
    return this.#port;
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
      if (server === undefined) return;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
    });
  }

  async #listen(): Promise<void> {
    const { config, logger, accounts, push, apps, metrics } = this.#runtime;
    const app = createHttpApp({
      accounts,
      push,
      apps,
      logger: logger.child({ role: 'api' }),
      bodyLimitBytes: config.bodyLimitBytes,
      health: this.#runtime.health,
      metrics,
      serveOperations: config.internalPort === undefined,
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
  }
}
