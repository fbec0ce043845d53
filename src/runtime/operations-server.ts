import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOperationsApp } from '../api/http-app.ts';
import type { Readiness } from './readiness.ts';
import type { Logger } from '../core/logger.ts';
import type { Metrics } from '../core/metrics.ts';

/**
 * The internal port: `/metrics`, `/healthz` and `/readyz` for Prometheus and
 * the orchestrator, kept off the public port (`internalPort`).
 */
export class OperationsServer {
  readonly #server: Server;
  readonly #logger: Logger;
  #closing: Promise<void> | undefined;

  constructor(deps: { health: Readiness; metrics: Metrics; logger: Logger }) {
    this.#server = createServer(createOperationsApp(deps));
    this.#logger = deps.logger;
  }

  /** Listens; answers the bound port (useful with port 0). */
  async start(port: number, host: string): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => resolve());
    });
    const bound = (this.#server.address() as AddressInfo).port;
    this.#logger.info({ port: bound, host }, 'internal port listening (metrics, health)');
    return bound;
  }

  close(): Promise<void> {
    this.#closing ??= new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
    return this.#closing;
  }
}
