import { H2Pool } from '../../../src/http2/h2-pool.ts';
import type { H2PoolOptions } from '../../../src/http2/h2-pool-options.ts';
import type { H2Answer, H2Request } from '../../../src/http2/h2-request.ts';
import type { TestPki } from '../../support/gateways/test-pki.ts';
import { memoryLogger, type MemoryLogger } from '../../support/memory-logger.ts';
import { HostileH2Server, type HostilePeer, type HostileScript } from './hostile-h2-server.ts';

/** What came of requests sent to a hostile server. */
export interface Played {
  answers: H2Answer[];
  /** Resolves once the client has closed every connection it opened. */
  clientClosed: Promise<void>;
  /** The first connection's peer. */
  peer: HostilePeer;
  /** The client's log lines (debug and up). */
  logs: MemoryLogger;
  client: H2Pool;
}

export type PlayOptions = Partial<Pick<H2PoolOptions, 'requestTimeoutMs' | 'pingIntervalMs' | 'limits' | 'connections'>> & {
  /** Requests sent at once; 1 unless told. */
  requests?: number;
};

export function request(path = '/3/device/a'): H2Request {
  return { path, pathRepeats: false, headers: ['apns-topic', 'com.example.app'], body: Buffer.from('{"aps":{}}') };
}

/**
 * Herald's HTTP/2 client (a pool of one connection, over TLS trusting the
 * test CA) against a `HostileH2Server` playing a script; cleans up what it
 * started.
 */
export class HostileHarness {
  readonly #pki: TestPki;
  #servers: HostileH2Server[] = [];
  #clients: H2Pool[] = [];

  constructor(pki: TestPki) {
    this.#pki = pki;
  }

  /** Sends `requests` requests to a server playing `script`; resolves once every one has settled. */
  async play(script: HostileScript, options: PlayOptions = {}): Promise<Played> {
    const server = await HostileH2Server.start(this.#pki, script);
    this.#servers.push(server);
    const logs = memoryLogger('debug');
    let open = 0;
    let allClosed!: () => void;
    const clientClosed = new Promise<void>((resolve) => (allClosed = resolve));
    const client = new H2Pool({
      origin: server.origin,
      tls: { ca: this.#pki.ca.certPem },
      connections: options.connections ?? 1,
      requestTimeoutMs: options.requestTimeoutMs ?? 5000,
      pingIntervalMs: options.pingIntervalMs ?? 60_000,
      limits: options.limits,
      logger: logs.logger,
      observer: {
        connectionOpened: () => (open += 1),
        connectionClosed: () => {
          open -= 1;
          if (open === 0) allClosed();
        },
        answered: () => undefined,
      },
    });
    this.#clients.push(client);
    const answers = await Promise.all(Array.from({ length: options.requests ?? 1 }, (_, n) => client.exchange(request(`/3/device/${n}`))));
    return { answers, clientClosed, peer: await server.firstPeer(), logs, client };
  }

  async close(): Promise<void> {
    await Promise.all(this.#clients.map((client) => client.close()));
    await Promise.all(this.#servers.map((server) => server.close()));
    this.#clients = [];
    this.#servers = [];
  }
}

/** The client's log lines for how connections ended, at info and above. */
export function endLines(logs: MemoryLogger): { level: number; msg?: string; code?: unknown; err?: unknown }[] {
  return logs.lines.filter((line) => line.level >= 30);
}
