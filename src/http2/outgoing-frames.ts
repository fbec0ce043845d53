import type { Socket } from 'node:net';
import { ControlFrameQueue } from './control-frame-queue.ts';
import { FrameWriter } from './frame-writer.ts';

/**
 * What a connection writes to its socket: frames are built in place by
 * `writer` and leave together once the event loop turn that wrote them is
 * over (every request started in one turn, one socket write). The control
 * frames among them are counted until the socket has sent them
 * (`ControlFrameQueue`).
 */
export class OutgoingFrames {
  readonly writer = new FrameWriter();
  readonly #socket: Socket;
  readonly #owed: ControlFrameQueue;
  #scheduled = false;
  /** Our side of the socket is ended or gone: nothing more is written. */
  #stopped = false;
  readonly #flush = (): void => this.flush();

  constructor(socket: Socket, controlFrameLimit: number) {
    this.#socket = socket;
    this.#owed = new ControlFrameQueue(controlFrameLimit);
  }

  /** Writes what waits at the end of this turn of the event loop. */
  schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(this.#flush);
  }

  /**
   * Counts a control frame about to be written, owed to the peer until the
   * socket has sent it, and schedules the write; one too many for a peer that
   * does not read throws ENHANCE_YOUR_CALM.
   */
  owe(what: string): void {
    this.#owed.add(what);
    this.schedule();
  }

  /** Writes what waits now, in one piece where the socket allows. */
  flush(): void {
    this.#scheduled = false;
    if (this.#stopped || !this.writer.pending) return;
    const chunks = this.writer.take();
    // Called once this flush's control frames are out of the socket's buffer.
    const written = this.#owed.flushing();
    const socket = this.#socket;
    if (chunks.length === 1) {
      socket.write(chunks[0] as Buffer, written);
      return;
    }
    socket.cork();
    const last = chunks.length - 1;
    for (let index = 0; index < last; index += 1) socket.write(chunks[index] as Buffer);
    socket.write(chunks[last] as Buffer, written);
    socket.uncork();
  }

  /** Writes nothing more: our side of the socket is ended, or it closed. */
  stop(): void {
    this.#stopped = true;
  }
}
