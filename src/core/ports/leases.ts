/** A lease held by this caller until it expires, is released, or is taken over after expiry. */
export interface Lease {
  readonly name: string;
  /**
   * Keeps the lease for `ttlMs` from now. Answers false when it was already lost
   * (expired, and perhaps taken by another holder): the holder must stop acting
   * as the owner.
   */
  extend(ttlMs: number): Promise<boolean>;
  /** Gives the lease up; harmless when it was already lost or released. */
  release(): Promise<void>;
}

/**
 * Named, expiring, exclusive leases shared by every node, so that exactly one
 * instance of a role leads (the scheduler). A holder that stops extending loses
 * the lease once its TTL has passed; nothing else revokes it.
 */
export interface Leases {
  /** Takes the lease `name` for `ttlMs`, or answers null at once when another holder has it. */
  acquireLease(name: string, ttlMs: number): Promise<Lease | null>;
}
