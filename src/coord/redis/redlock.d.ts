// redlock 5.0.0-beta.2 ships its types at dist/index.d.ts, but its package.json
// "exports" map does not point to them, so `nodenext` resolution cannot find
// them. This declares the part Herald uses, as those types have it.
declare module 'redlock' {
  import type { EventEmitter } from 'node:events';
  import type { Cluster, Redis } from 'ioredis';

  type Client = Redis | Cluster;

  export interface Settings {
    readonly driftFactor: number;
    readonly retryCount: number;
    readonly retryDelay: number;
    readonly retryJitter: number;
    readonly automaticExtensionThreshold: number;
  }

  export interface ExecutionStats {
    readonly membershipSize: number;
    readonly quorumSize: number;
    readonly votesFor: Set<Client>;
    readonly votesAgainst: Map<Client, Error>;
  }

  export interface ExecutionResult {
    attempts: ReadonlyArray<Promise<ExecutionStats>>;
  }

  /** A client voted against: one of the resources is locked by another value. */
  export class ResourceLockedError extends Error {}

  /** No quorum within the retries; `attempts` tell why each client voted against. */
  export class ExecutionError extends Error {
    readonly attempts: ReadonlyArray<Promise<ExecutionStats>>;
  }

  export class Lock {
    readonly resources: string[];
    readonly value: string;
    expiration: number;
    release(): Promise<ExecutionResult>;
    extend(duration: number): Promise<Lock>;
  }

  export default class Redlock extends EventEmitter {
    constructor(clients: Iterable<Client>, settings?: Partial<Settings>);
    acquire(resources: string[], duration: number, settings?: Partial<Settings>): Promise<Lock>;
    release(lock: Lock, settings?: Partial<Settings>): Promise<ExecutionResult>;
    extend(existing: Lock, duration: number, settings?: Partial<Settings>): Promise<Lock>;
  }
}
