import type { Server } from '@grpc/grpc-js';
import { HealthImplementation, type ServingStatus } from 'grpc-health-check';
import type { Readiness } from '../runtime/readiness.ts';

/** The services the health service reports on: "" (the whole server) and the push API. */
export const healthServiceNames = ['', 'herald.v1.PushService'] as const;

export interface GrpcHealthOptions {
  /** How often readiness is read into the health statuses; default 1000 ms (about the readiness cache). */
  intervalMs?: number;
}

/**
 * The standard `grpc.health.v1.Health` service (Check, Watch, List, from
 * grpc-health-check), answering what `/readyz` answers: SERVING while the
 * backends this node's roles need answer, NOT_SERVING otherwise, and
 * NOT_SERVING from close on. Readiness is read on a timer rather than per
 * Check, and a status is set only when it changes, so Watch streams get a
 * message per change.
 */
export class GrpcHealth {
  readonly #implementation = new HealthImplementation();
  readonly #readiness: Readiness;
  readonly #intervalMs: number;
  #status: ServingStatus | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(readiness: Readiness, options: GrpcHealthOptions = {}) {
    this.#readiness = readiness;
    this.#intervalMs = options.intervalMs ?? 1000;
  }

  addToServer(server: Server): void {
    this.#implementation.addToServer(server);
  }

  /**
   * NOT_SERVING until readiness is first read, right after the current start
   * step: while the roles are starting the process is not ready anyway.
   */
  start(): void {
    this.#set('NOT_SERVING');
    this.#timer = setTimeout(() => void this.#refresh(), 0).unref();
  }

  /** NOT_SERVING from now on (the server is closing); no more readiness reads. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#set('NOT_SERVING');
  }

  async #refresh(): Promise<void> {
    // Never rejects: an unanswered backend is reported unavailable.
    const report = await this.#readiness.report();
    if (this.#stopped) return;
    this.#set(report.ready ? 'SERVING' : 'NOT_SERVING');
    this.#timer = setTimeout(() => void this.#refresh(), this.#intervalMs).unref();
  }

  #set(status: ServingStatus): void {
    if (status === this.#status) return;
    this.#status = status;
    for (const name of healthServiceNames) this.#implementation.setStatus(name, status);
  }
}
