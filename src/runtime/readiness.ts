import type { Clock } from '../core/clock.ts';
import type { RoleStatus } from '../roles/role.ts';

/** One backend `/readyz` asks about. */
export interface Dependency {
  name: string;
  /** Resolves when the backend answers. */
  check(): Promise<void>;
  /** Whether this process is unready without it; others are reported but do not make it unready. */
  required: boolean;
}

export interface DependencyStatus {
  status: 'ok' | 'unavailable';
  error?: string;
  /** Present (true) on a dependency this process's roles can work without. */
  optional?: true;
}

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, DependencyStatus>;
  /** Each role this process runs, by name. */
  roles: Record<string, RoleStatus>;
}

/** What `/healthz` answers: the process is alive unless one of its roles failed for good. */
export interface LivenessReport {
  alive: boolean;
  roles: Record<string, RoleStatus>;
}

export interface ReadinessOptions {
  clock: Clock;
  /** Longest wait for one backend's answer; a slower one counts as unavailable. Default 800 ms. */
  timeoutMs?: number;
  /** How long an answer is reused, so that probes from many load balancers cost one check. Default 1000 ms. */
  cacheMs?: number;
  /** The roles of this process and their states, read afresh for every report (it is cheap). */
  roles?: () => Record<string, RoleStatus>;
}

/**
 * What `/readyz` answers: every backend checked at once, each bounded by a
 * timeout, the answer reused for a moment and shared by concurrent probes, so
 * a probe answers within about `timeoutMs` whatever the backends do. Only the
 * backends the process's roles need decide readiness: an API node stays
 * ready (accounts work) while Kafka is away, and only push submission fails.
 * Every role must be running too: a process is unready while it starts,
 * while it drains on SIGTERM (so load balancers stop sending it work), and
 * once a role has failed.
 */
export class Readiness {
  readonly #backends: readonly Dependency[];
  readonly #clock: Clock;
  readonly #timeoutMs: number;
  readonly #cacheMs: number;
  readonly #roles: () => Record<string, RoleStatus>;
  #last: { at: number; report: DependenciesReport } | undefined;
  #running: Promise<DependenciesReport> | undefined;

  constructor(dependencies: readonly Dependency[], options: ReadinessOptions) {
    this.#backends = dependencies;
    this.#clock = options.clock;
    this.#timeoutMs = options.timeoutMs ?? 800;
    this.#cacheMs = options.cacheMs ?? 1000;
    this.#roles = options.roles ?? (() => ({}));
  }

  async report(): Promise<ReadinessReport> {
    const { ready, checks } = await this.#dependencies();
    const roles = this.#roles();
    return { ready: ready && Object.values(roles).every((role) => role.state === 'running'), checks, roles };
  }

  liveness(): LivenessReport {
    const roles = this.#roles();
    return { alive: Object.values(roles).every((role) => role.state !== 'failed'), roles };
  }

  #dependencies(): Promise<DependenciesReport> {
    const last = this.#last;
    if (last !== undefined && this.#clock.now() - last.at < this.#cacheMs) return Promise.resolve(last.report);
    this.#running ??= this.#check().finally(() => (this.#running = undefined));
    return this.#running;
  }

  async #check(): Promise<DependenciesReport> {
    const results = await Promise.all(this.#backends.map(async (dependency) => [dependency, await this.#status(dependency)] as const));
    const checks: Record<string, DependencyStatus> = {};
    let ready = true;
    for (const [dependency, status] of results) {
      checks[dependency.name] = dependency.required ? status : { ...status, optional: true };
      if (dependency.required && status.status !== 'ok') ready = false;
    }
    const report = { ready, checks };
    this.#last = { at: this.#clock.now(), report };
    return report;
  }

  async #status(dependency: Dependency): Promise<DependencyStatus> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.#timeoutMs} ms`)), this.#timeoutMs);
    });
    try {
      await Promise.race([dependency.check(), timedOut]);
      return { status: 'ok' };
    } catch (error) {
      return { status: 'unavailable', error: error instanceof Error ? error.message : String(error) };
    } finally {
      clearTimeout(timer);
    }
  }
}

type DependenciesReport = Pick<ReadinessReport, 'ready' | 'checks'>;
