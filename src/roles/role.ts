/** A role a process runs: started in order, closed in reverse order, `close` draining what is in flight. */
export interface Role {
  readonly name: string;
  start(): Promise<void>;
  /** Idempotent. */
  close(): Promise<void>;
}
