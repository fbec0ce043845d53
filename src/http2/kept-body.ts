/** Most of an answer's body kept: a gateway's error bodies are a few hundred bytes, and one larger is cut here. */
export const keptBodyLimit = 64 * 1024;

/**
 * The body of an answer as it arrives, up to `keptBodyLimit`: each piece is
 * kept once and joined when the answer is whole, so that a body sent a byte
 * a frame costs its bytes, not a copy of all before it per frame. Bytes past
 * the limit are dropped.
 */
export class KeptBody {
  #pieces: Buffer[] = [];
  #length = 0;

  /** Keeps what fits of `source[start, end)`; `copy` when the source is a buffer that will be reused or is much larger. */
  add(source: Buffer, start: number, end: number, copy: boolean): void {
    const take = Math.min(end - start, keptBodyLimit - this.#length);
    if (take <= 0) return;
    const piece = source.subarray(start, start + take);
    this.#pieces.push(copy ? Buffer.from(piece) : piece);
    this.#length += take;
  }

  /** The body kept so far, or undefined for none. */
  take(): Buffer | undefined {
    if (this.#length === 0) return undefined;
    return this.#pieces.length === 1 ? this.#pieces[0] : Buffer.concat(this.#pieces, this.#length);
  }
}
