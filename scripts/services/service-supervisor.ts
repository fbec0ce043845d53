import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { LocalService, Report } from './local-service.ts';
import { ManagedProcess, type StartedProcess } from './managed-process.ts';
import { describePortHolder, isPortFree } from './port-check.ts';
import { SerialQueue } from './serial-queue.ts';
import { ServiceError } from './service-error.ts';

export interface SupervisorOptions {
  readonly host: string;
  readonly readyTimeoutMs: number;
  readonly stopGraceMs: number;
  readonly report: Report;
}

/** What `up` did for one service. */
export interface UpResult {
  readonly name: LocalService['name'];
  readonly pid: number;
  /** `started` now, or found `running` (and ready) from an earlier `up`. */
  readonly outcome: 'started' | 'running';
  /** The readiness answer, e.g. "Redis 7.0.15 on 127.0.0.1:16379". */
  readonly detail: string;
  readonly seconds: number;
  /**
   * Set when a process found running was started with other settings than
   * these (an older checkout, say): why, and how to apply them. It is left
   * running; the services are shared, so restarting is for whoever runs them.
   */
  readonly stale?: string;
}

export interface ServiceStatus {
  readonly name: LocalService['name'];
  readonly state: 'ready' | 'not-ready' | 'stopped';
  readonly pid: number | undefined;
  readonly detail: string;
}

const pollIntervalMs = 500;

/**
 * Starts, checks and stops local services the same way for each: a pidfile
 * and command line per process, a port check before starting, and a wait
 * for a real answer, never a fixed sleep.
 */
export class ServiceSupervisor {
  private readonly options: SupervisorOptions;
  // Two concurrent `mvn` runs on one local repository can corrupt it.
  private readonly provisioning = new SerialQueue();

  constructor(options: SupervisorOptions) {
    this.options = options;
  }

  /**
   * Brings `service` up and resolves once it answers. A process of ours that
   * already answers is left alone; one still starting is waited for.
   */
  async up(service: LocalService): Promise<UpResult> {
    const began = Date.now();
    const managed = processOf(service);
    const result = (pid: number, outcome: UpResult['outcome'], detail: string): UpResult => ({
      name: service.name,
      pid,
      outcome,
      detail,
      seconds: (Date.now() - began) / 1000,
    });

    const running = await managed.runningPid();
    if (running !== undefined) {
      let detail = await service.isReady().catch(() => undefined);
      if (detail === undefined) {
        this.report(service, `pid ${running} is running but does not answer yet; waiting`);
        detail = await this.waitUntilReady(service, managed, running);
      }
      const stale = await staleness(service, running);
      if (stale === undefined) await service.afterReady?.((line) => this.report(service, line));
      return { ...result(running, 'running', detail), ...(stale === undefined ? {} : { stale }) };
    }

    await this.ensurePortsFree(service);
    await this.provisioning.run(() => service.provision((line) => this.report(service, line)));
    const command = service.command();
    let started: StartedProcess;
    try {
      started = await managed.start(command);
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT' ? ' (not found; install it or fix PATH or JAVA_HOME)' : '';
      throw new ServiceError(service.name, `cannot run ${command.command}${missing}: ${(error as Error).message}`, { cause: error });
    }
    this.report(service, `started pid ${started.pid}; waiting for it to answer (log: ${managed.logFile})`);
    const detail = await this.waitUntilReady(service, managed, started.pid, started);
    await service.afterReady?.((line) => this.report(service, line));
    return result(started.pid, 'started', detail);
  }

  /**
   * Stops the process `up` started for `service`, if it runs. Returns its pid.
   * `SIGKILL` kills it at once, a crash for the tests of a cluster losing a node.
   */
  async down(service: LocalService, signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<number | undefined> {
    const managed = processOf(service);
    try {
      return await managed.stop(this.options.stopGraceMs, signal);
    } catch (error) {
      throw await ServiceError.withLogTail(service.name, `cannot stop: ${(error as Error).message}`, managed.logFile, { cause: error });
    }
  }

  async status(service: LocalService): Promise<ServiceStatus> {
    const pid = await processOf(service).runningPid();
    if (pid !== undefined) {
      const stale = await staleness(service, pid);
      return service.isReady().then(
        (detail) => ({ name: service.name, state: 'ready', pid, detail: stale === undefined ? detail : `${detail}; ${stale}` }),
        (error: unknown) => ({ name: service.name, state: 'not-ready', pid, detail: `does not answer: ${messageOf(error)}` }),
      );
    }
    const busy = await this.busyPorts(service);
    const detail = busy.length > 0 ? `stopped, but ${busy.join('; ')}` : 'stopped';
    return { name: service.name, state: 'stopped', pid: undefined, detail };
  }

  private async waitUntilReady(service: LocalService, managed: ManagedProcess, pid: number, started?: StartedProcess): Promise<string> {
    const deadline = Date.now() + this.options.readyTimeoutMs;
    let exit: string | undefined;
    void started?.exited.then((how) => (exit = how));
    let lastError: unknown;
    for (;;) {
      try {
        return await service.isReady();
      } catch (error) {
        lastError = error;
      }
      if (exit !== undefined || (await managed.runningPid()) !== pid) {
        throw await ServiceError.withLogTail(service.name, `pid ${pid} ${exit ?? 'exited'} before it was ready`, managed.logFile);
      }
      if (Date.now() >= deadline) {
        const waited = `pid ${pid} did not answer within ${this.options.readyTimeoutMs / 1000} s (last attempt: ${messageOf(lastError)})`;
        // A process this call started is not left half-up; one found running belongs to whoever started it.
        if (started) {
          await managed.stop(this.options.stopGraceMs);
          throw await ServiceError.withLogTail(service.name, `${waited}; stopped it`, managed.logFile);
        }
        throw await ServiceError.withLogTail(service.name, waited, managed.logFile);
      }
      await delay(pollIntervalMs);
    }
  }

  private async ensurePortsFree(service: LocalService): Promise<void> {
    const busy = await this.busyPorts(service);
    if (busy.length > 0) {
      throw new ServiceError(
        service.name,
        `${busy.join('; ')}, and it is not a ${service.name} started from ${service.dir}. ` +
          'Stop that process, or move these services with HERALD_SERVICES_PORT_OFFSET or the HERALD_SERVICES_*_PORT variables.',
      );
    }
  }

  /** "127.0.0.1:19042, 127.0.0.1:17000 are in use by pid 42: java …", one entry per holder. */
  private async busyPorts(service: LocalService): Promise<string[]> {
    const byHolder = new Map<string, string[]>();
    const host = service.host ?? this.options.host;
    for (const port of service.ports) {
      if (await isPortFree(host, port)) continue;
      const holder = await describePortHolder(port, host);
      byHolder.set(holder, [...(byHolder.get(holder) ?? []), `${host}:${port}`]);
    }
    return [...byHolder].map(([holder, addresses]) => `${addresses.join(', ')} ${addresses.length > 1 ? 'are' : 'is'} in use by ${holder}`);
  }

  private report(service: LocalService, line: string): void {
    this.options.report(`${service.name}: ${line}`);
  }
}

/** The log file of `service`'s process: its stdout and stderr. */
export function logFileOf(service: LocalService): string {
  return processOf(service).logFile;
}

function processOf(service: LocalService): ManagedProcess {
  return new ManagedProcess({ name: service.name, dir: service.dir });
}

/**
 * Why the process `pid` of `service` runs with other settings than these, or
 * undefined when it runs with these: its command line, and the config files
 * it read at start (written then, and not since), against what they would be
 * now.
 */
async function staleness(service: LocalService, pid: number): Promise<string | undefined> {
  const restart = `restart it to apply them: npm run services -- down ${service.name} && npm run services -- up ${service.name}`;
  const cmdline = await readFile(`/proc/${pid}/cmdline`).catch(() => undefined);
  const { command, args } = service.command();
  if (cmdline !== undefined && !cmdline.equals(Buffer.from([command, ...args].map((arg) => `${arg}\0`).join('')))) {
    return `pid ${pid} runs with an older command line; ${restart}`;
  }
  for (const [file, text] of await service.configFiles()) {
    const onDisk = await readFile(file, 'utf8').catch(() => undefined);
    if (onDisk !== text) return `pid ${pid} runs with an older ${path.basename(file)}; ${restart}`;
  }
  return undefined;
}

function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}
