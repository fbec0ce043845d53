import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify as toYaml } from 'yaml';
import { eventually } from '../../support/eventually.ts';
import { withDeadline } from '../../support/with-deadline.ts';
import { prometheusTool } from './prometheus-tools.ts';

/** One static scrape job: Prometheus reads `http://<address>/metrics`. */
export interface ScrapeTarget {
  job: string;
  /** `host:port` */
  address: string;
  /** Added to every series of the target, as Kubernetes service discovery adds `namespace`. */
  labels?: Record<string, string>;
}

export interface PrometheusOptions {
  targets: ScrapeTarget[];
  /** Rule files to load, by absolute path; their rules are evaluated every `intervalSeconds`. */
  ruleFiles?: string[];
  /** Scrape and evaluation interval; default 1 s, so a test sees a change within seconds. */
  intervalSeconds?: number;
  /** How long to wait for `/-/ready`; default 20 s. */
  startTimeoutMs?: number;
}

/** What `/api/v1/query` answers, success or not (a bad query answers 400 with the same shape). */
export interface QueryAnswer {
  status: 'success' | 'error';
  data?: { resultType: string; result: { metric: Record<string, string>; value?: [number, string] }[] };
  errorType?: string;
  error?: string;
  warnings?: string[];
}

/** A rule as `/api/v1/rules` reports it after evaluating it. */
export interface EvaluatedRule {
  name: string;
  query: string;
  type: 'alerting' | 'recording';
  health: 'ok' | 'err' | 'unknown';
  lastError?: string;
  lastEvaluation: string;
  state?: string;
}

/** A real `prometheus` on a loopback port of its own, with a throwaway configuration and database. */
export interface PrometheusServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** An instant query at the current time. */
  query(expr: string): Promise<QueryAnswer>;
  /** The loaded rules, each with the health of its last evaluation. */
  rules(): Promise<EvaluatedRule[]>;
  /** The last of what the server printed, for failure messages. */
  output(): string;
  /** SIGTERM, waits for it to exit (SIGKILL after 10 s), removes its files; idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts Debian's `prometheus` on a free loopback port with the given scrape
 * targets and rule files, and waits until it answers ready. Throws, naming
 * the package, when Prometheus is not installed.
 */
export async function startPrometheus(options: PrometheusOptions): Promise<PrometheusServer> {
  const binary = prometheusTool('prometheus');
  const dir = mkdtempSync(join(tmpdir(), 'herald-prometheus-'));
  const interval = `${options.intervalSeconds ?? 1}s`;
  const configFile = join(dir, 'prometheus.yml');
  writeFileSync(
    configFile,
    toYaml({
      global: { scrape_interval: interval, scrape_timeout: interval, evaluation_interval: interval },
      rule_files: options.ruleFiles ?? [],
      scrape_configs: options.targets.map((target) => ({
        job_name: target.job,
        static_configs: [{ targets: [target.address], labels: target.labels ?? {} }],
      })),
    }),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    binary,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited = false;
  const exit = once(child, 'exit').then(() => (exited = true));
  child.once('error', (error) => {
    output += `\n${error.message}`;
    exited = true;
  });
  // A test that dies halfway must not leave a server behind.
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.on('exit', killOnExit);

  let stopping: Promise<void> | undefined;
  const server: PrometheusServer = {
    url,
    query: async (expr) => {
      const res = await fetch(`${url}/api/v1/query`, { method: 'POST', body: new URLSearchParams({ query: expr }) });
      return (await res.json()) as QueryAnswer;
    },
    rules: async () => {
      const res = await fetch(`${url}/api/v1/rules`);
      const body = (await res.json()) as { data: { groups: { rules: EvaluatedRule[] }[] } };
      return body.data.groups.flatMap((group) => group.rules);
    },
    output: () => output,
    stop: () => {
      stopping ??= (async () => {
        if (!exited) {
          child.kill('SIGTERM');
          try {
            await withDeadline(exit, `prometheus on port ${port} to exit after SIGTERM`);
          } catch {
            child.kill('SIGKILL');
            await exit;
          }
        }
        process.off('exit', killOnExit);
        rmSync(dir, { recursive: true, force: true });
      })();
      return stopping;
    },
  };
  try {
    await eventually(
      `prometheus on port ${port} to answer /-/ready`,
      async () => (await fetch(`${url}/-/ready`)).status,
      (status) => {
        if (exited) throw new Error(`prometheus exited while starting:\n${output}`);
        return status === 200;
      },
      { timeoutMs: options.startTimeoutMs ?? 20_000, intervalMs: 100, detail: () => `it printed:\n${output}` },
    );
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  await once(probe, 'close');
  if (address === null || typeof address === 'string') throw new Error('no port was assigned');
  return address.port;
}
