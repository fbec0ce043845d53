import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpApp } from '../api/http-app.ts';
import type { Runtime } from '../runtime/create-runtime.ts';

/** The stateless HTTP front: `/1.1/*`, emailed pages, health. */
export class ApiRole {
  private readonly runtime: Runtime;
  private server: Server | undefined;
  private closing: Promise<void> | undefined;

  constructor(runtime: Runtime) {
    this.runtime = runtime;
  }

  /** Listens; answers the bound port (useful with port 0). */
  async start(): Promise<number> {
    const { config, logger, accounts, push, apps, metrics } = this.runtime;
    const app = createHttpApp({
      accounts,
      push,
      apps,
      logger: logger.child({ role: 'api' }),
      bodyLimitBytes: config.bodyLimitBytes,
      health: this.runtime.health,
      metrics,
      serveOperations: config.internalPort === undefined,
    });
    const server = createServer(app);
    server.keepAliveTimeout = 65_000;
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    logger.info({ role: 'api', port }, 'api listening');
    return port;
  }

  /** Stops accepting connections and waits for in-flight requests. */
  close(): Promise<void> {
    const server = this.server;
    this.closing ??= server
      ? new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        })
      : Promise.resolve();
    return this.closing;
  }
}
