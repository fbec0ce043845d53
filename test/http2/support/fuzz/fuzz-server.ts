import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { FrameType } from '../../../../src/http2/frame-types.ts';
import { WireReader, type WireFrame } from '../wire.ts';
import type { FuzzCase } from './fuzz-case.ts';

/** What the server saw of one connection of a case. */
export interface FuzzConnection {
  /** Every frame the client sent. */
  received: WireFrame[];
  /** Resolves once the server's socket has closed. */
  closed: Promise<void>;
}

/**
 * A cleartext HTTP/2 server (prior knowledge) in the test's own process that
 * plays the current case against each connection: fast enough for
 * thousands of cases, where the harness tests speak TLS.
 */
export class FuzzServer {
  readonly #server: Server;
  #case: FuzzCase | undefined;
  connections: FuzzConnection[] = [];

  constructor() {
    this.#server = createServer((socket) => this.#play(socket));
  }

  async listen(): Promise<number> {
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    return (this.#server.address() as AddressInfo).port;
  }

  /** Plays `fuzzCase` against the connections that come from now on. */
  play(fuzzCase: FuzzCase): void {
    this.#case = fuzzCase;
    this.connections = [];
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  #play(socket: Socket): void {
    const fuzzCase = this.#case as FuzzCase;
    const received: WireFrame[] = [];
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    this.connections.push({ received, closed });
    const reader = new WireReader();
    let wake: (() => void) | undefined;
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      try {
        received.push(...reader.push(chunk));
      } catch {
        socket.destroy();
      }
      wake?.();
    });
    /** Waits until `ready` holds, or `ms` have passed. */
    const until = async (ready: () => boolean, ms: number): Promise<void> => {
      const deadline = performance.now() + ms;
      while (!ready() && performance.now() < deadline && !socket.destroyed) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 5);
        });
      }
    };
    const headersSeen = (): number => received.filter((frame) => frame.type === FrameType.headers).length;
    void (async () => {
      await until(() => received.some((frame) => frame.type === FrameType.settings), 200);
      socket.write(Buffer.concat(fuzzCase.preface));
      await until(() => headersSeen() >= fuzzCase.streams.length, fuzzCase.patienceMs);
      const bytes = Buffer.concat(fuzzCase.frames);
      let at = 0;
      for (const size of fuzzCase.writes) {
        if (at >= bytes.length || socket.destroyed) break;
        socket.write(bytes.subarray(at, at + size));
        at += size;
        if (size < 100) await new Promise((resolve) => setImmediate(resolve));
      }
      if (at < bytes.length && !socket.destroyed) socket.write(bytes.subarray(at));
      if (fuzzCase.end === 'end') socket.end();
      else if (fuzzCase.end === 'destroy') setImmediate(() => socket.destroy());
    })();
  }
}
