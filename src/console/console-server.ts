import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Logger } from '../core/logger.ts';
import { consoleBase } from './console-paths.ts';
import type { HeraldConsole } from './console-app.ts';

/**
 * The console on a port of its own (`console.port`): `/console` and nothing
 * else, so the API port serves no console at all and the console's port
 * can be kept to an internal network.
 */
export class ConsoleServer {
  readonly #server: Server;
  readonly #console: HeraldConsole;
  readonly #logger: Logger;
  #closing: Promise<void> | undefined;

  constructor(heraldConsole: HeraldConsole, logger: Logger) {
    const app = express();
    app.disable('x-powered-by');
    app.get('/', (_req, res) => res.redirect(303, `${consoleBase}/`));
    app.use(consoleBase, heraldConsole.app);
    app.use((_req, res) => res.status(404).json({ code: 1, error: 'Not found: the console is at /console.' }));
    this.#server = createServer(app);
    this.#console = heraldConsole;
    this.#logger = logger;
  }

  /** Listens; answers the bound port (useful with port 0). */
  async start(port: number, host: string): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => resolve());
    });
    const bound = (this.#server.address() as AddressInfo).port;
    this.#logger.info({ port: bound, host }, 'console listening');
    return bound;
  }

  /** Ends open event streams, then waits for in-flight requests. */
  close(): Promise<void> {
    this.#closing ??= new Promise<void>((resolve) => {
      this.#console.close();
      this.#server.close(() => resolve());
      this.#server.closeIdleConnections();
    });
    return this.#closing;
  }
}
