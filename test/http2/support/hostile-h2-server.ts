import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import { FrameType } from '../../../src/http2/frame-types.ts';
import type { TestPki } from '../../support/gateways/test-pki.ts';
import { settingsAck, settingsFrame, WireReader, type WireFrame } from './wire.ts';

/** What a client's GOAWAY said. */
export interface ClientGoAway {
  lastStreamId: number;
  code: number;
  debug: string;
}

/**
 * One connection of a `HostileH2Server`, as its script drives it: the frames
 * the client sent, and whatever bytes the script chooses to send back.
 */
export class HostilePeer {
  readonly socket: TLSSocket;
  /** Every frame the client has sent, in order. */
  readonly received: WireFrame[] = [];
  /** Resolves once the socket has closed. */
  readonly closed: Promise<void>;
  readonly #reader = new WireReader();
  #waiters: { match: (frame: WireFrame) => boolean; resolve: (frame: WireFrame) => void }[] = [];
  /** Whether the client ended its side, or the socket is gone. */
  #over = false;

  constructor(socket: TLSSocket) {
    this.socket = socket;
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('data', (chunk: Buffer) => {
      for (const frame of this.#reader.push(chunk)) {
        this.received.push(frame);
        const ready = this.#waiters.filter((waiter) => waiter.match(frame));
        this.#waiters = this.#waiters.filter((waiter) => !waiter.match(frame));
        for (const waiter of ready) waiter.resolve(frame);
      }
    });
    socket.on('end', () => (this.#over = true));
    socket.on('close', () => (this.#over = true));
    // A client that drops the connection mid-flood makes writes fail: that is what the tests wait for.
    socket.on('error', () => (this.#over = true));
  }

  /** Whether the client has ended the connection (or it is gone). */
  get over(): boolean {
    return this.#over || this.socket.destroyed;
  }

  /** The first frame from the client that matches, now or when it comes. */
  next(match: (frame: WireFrame) => boolean): Promise<WireFrame> {
    const seen = this.received.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve) => this.#waiters.push({ match, resolve }));
  }

  /** Waits for the client's SETTINGS, then sends ours (`entries`) and the ack of the client's. */
  async handshake(entries: readonly (readonly [number, number])[] = []): Promise<void> {
    await this.next((frame) => frame.type === FrameType.settings && frame.flags === 0);
    this.send(settingsFrame(entries), settingsAck);
  }

  /** The stream id of the client's next request not yet asked for, once its HEADERS came. */
  async request(nth = 1): Promise<number> {
    let seen = 0;
    const frame = await this.next((candidate) => candidate.type === FrameType.headers && ++seen === nth);
    return frame.streamId;
  }

  /** The GOAWAY the client sent, if any. */
  goAway(): ClientGoAway | undefined {
    const frame = this.received.find((candidate) => candidate.type === FrameType.goaway);
    if (frame === undefined) return undefined;
    return { lastStreamId: frame.payload.readUInt32BE(0), code: frame.payload.readUInt32BE(4), debug: frame.payload.toString('latin1', 8) };
  }

  /** Waits for the client's GOAWAY. */
  async clientGoAway(): Promise<ClientGoAway> {
    await this.next((frame) => frame.type === FrameType.goaway);
    return this.goAway() as ClientGoAway;
  }

  /** Writes the frames in one piece, unless the connection is over. */
  send(...frames: Buffer[]): void {
    if (!this.over) this.socket.write(Buffer.concat(frames));
  }

  /**
   * Writes `make(0)`, `make(1)`, … as fast as the client takes them, `batch`
   * at a time, until the client ends the connection or `max` frames have
   * gone; answers how many went.
   */
  async flood(make: (index: number) => Buffer, options: { max?: number; batch?: number } = {}): Promise<number> {
    const max = options.max ?? 1_000_000;
    const batch = options.batch ?? 256;
    let sent = 0;
    while (sent < max && !this.over) {
      const frames: Buffer[] = [];
      for (let index = 0; index < batch && sent < max; index += 1) frames.push(make(sent++));
      if (!this.socket.write(Buffer.concat(frames))) await this.#drained();
      // Let the client's reads in between batches, as a network would.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return sent;
  }

  /** Resolves once the socket can take more, or is gone. */
  #drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.on('drain', done);
      this.socket.on('close', done);
    });
  }

  /** Stops reading what the client sends: its writes back up, as to a server that stopped reading. */
  stopReading(): void {
    this.socket.pause();
  }

  end(): void {
    this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** Plays a script against each connection a client opens. */
export type HostileScript = (peer: HostilePeer) => Promise<void> | void;

/**
 * A TLS server (the test PKI's certificate, trusted by the client through
 * its CA setting) that agrees to `h2` and then does only what each test's
 * script says: a hostile or broken gateway in a few lines.
 */
export class HostileH2Server {
  readonly peers: HostilePeer[] = [];
  readonly #server: Server;
  #origin = '';

  constructor(pki: TestPki, script: HostileScript, options: { alpn?: string[] } = {}) {
    this.#server = createServer({ cert: pki.server.certPem, key: pki.server.keyPem, ALPNProtocols: options.alpn ?? ['h2'] }, (socket) => {
      const peer = new HostilePeer(socket);
      this.peers.push(peer);
      void Promise.resolve(script(peer)).catch(() => peer.destroy());
    });
  }

  /** A server listening on a port of its own on 127.0.0.1. */
  static async start(pki: TestPki, script: HostileScript, options: { alpn?: string[] } = {}): Promise<HostileH2Server> {
    const server = new HostileH2Server(pki, script, options);
    server.#server.listen(0, '127.0.0.1');
    await once(server.#server, 'listening');
    server.#origin = `https://127.0.0.1:${(server.#server.address() as AddressInfo).port}`;
    return server;
  }

  /** `https://127.0.0.1:port`. */
  get origin(): string {
    return this.#origin;
  }

  /** The first connection's peer, once it has connected. */
  async firstPeer(): Promise<HostilePeer> {
    while (this.peers.length === 0) await once(this.#server, 'secureConnection');
    return this.peers[0] as HostilePeer;
  }

  async close(): Promise<void> {
    for (const peer of this.peers) peer.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
