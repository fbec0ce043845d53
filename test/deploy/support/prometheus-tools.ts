import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The binaries of Debian's `prometheus` package. */
export type PrometheusTool = 'prometheus' | 'promtool';

/**
 * Where `name` is on the PATH (or in /usr/bin, where Debian puts it), or in
 * `directories` when given. Throws, saying how to install it, when it is
 * missing: these tests fail rather than skip on a machine without Prometheus.
 */
export function prometheusTool(name: PrometheusTool, directories = defaultDirectories()): string {
  for (const directory of directories) {
    const candidate = join(directory, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this directory.
    }
  }
  throw new Error(`${name} is not installed (looked in ${directories.join(', ')}); install Debian's prometheus package: apt-get install -y --no-install-recommends prometheus`);
}

function defaultDirectories(): string[] {
  return [...(process.env.PATH ?? '').split(delimiter).filter((directory) => directory !== ''), '/usr/bin'];
}

/** What a finished tool run printed, stdout and stderr together, and how it exited. */
export interface ToolRun {
  code: number;
  output: string;
}

/** Runs `promtool <args>` in `cwd` and answers its exit code and output; never throws for a non-zero exit. */
export function runPromtool(args: readonly string[], options: { cwd: string; timeoutMs?: number }): Promise<ToolRun> {
  const promtool = prometheusTool('promtool');
  return new Promise((resolve, reject) => {
    execFile(promtool, args, { cwd: options.cwd, timeout: options.timeoutMs ?? 20_000 }, (error, stdout, stderr) => {
      const output = `${stdout}${stderr}`;
      if (error === null) return resolve({ code: 0, output });
      // A number when promtool ran and exited non-zero; anything else (ENOENT, a timeout's signal) is no answer at all.
      if (typeof error.code === 'number') return resolve({ code: error.code, output });
      reject(new Error(`promtool ${args.join(' ')} did not finish: ${error.message}\n${output}`));
    });
  });
}
