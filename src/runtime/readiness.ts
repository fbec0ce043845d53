import type { Clock } from '../core/clock.ts';

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
}

export interface ReadinessOptions {
  clock: Clock;
  /** Longest wait for one backend's answer; a slower one counts as unavailable. Default 800 ms. */
  timeoutMs?: number;
  /** How long an answer is reused, so that probes from many load balancers cost one check. Default 1000 ms. */
  cacheMs?: number;
}

/**
 * What `/readyz` answers: every backend checked at once, each bounded by a
 * timeout, the answer reused for a moment and shared by concurrent probes, so
 * a probe answers within about `timeoutMs` whatever the backends do. Only the
 * backends the process's roles need decide readiness: an API node stays
 * ready (accounts work) while Kafka is away, and only push submission fails.
 */
export class Readiness {
  readonly #dependencies: readonly Dependency[];
  readonly #clock: Clock;
  readonly #timeoutMs: number;
  readonly #cacheMs: number;
  #last: { at: number; report: ReadinessReport } | undefined;
  #running: Promise<ReadinessReport> | undefined;

  constructor(dependencies: readonly Dependency[], options: ReadinessOptions) {
    this.#dependencies = dependencies;
    this.#clock = options.clock;
    this.#timeoutMs = options.timeoutMs ?? 800;
    this.#cacheMs = options.cacheMs ?? 1000;
  }

  report(): Promise<ReadinessReport> {
    const last = this.#last;
    if (last !== undefined && this.#clock.now() - last.at < this.#cacheMs) return Promise.resolve(last.report);
    this.#running ??= this.#check().finally(() => (this.#running = undefined));
    return this.#running;
  }

  async #check(): Promise<ReadinessReport> {
    const results = await Promise.all(this.#dependencies.map(async (dependency) => [dependency, await this.#status(dependency)] as const));
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
