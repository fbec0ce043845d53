import { spawn } from 'node:child_process';
import { access, constants, open } from 'node:fs/promises';
import path from 'node:path';

/** The outcome of a command run to completion. */
export interface CommandResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * Runs a command to completion with stdin closed and stdout and stderr
 * appended to `logFile`. Rejects only when it cannot be started (ENOENT and
 * the like); a non-zero exit is the caller's to judge.
 */
export async function runCommand(
  command: string,
  args: readonly string[],
  options: { cwd: string; logFile: string; env?: NodeJS.ProcessEnv },
): Promise<CommandResult> {
  const log = await open(options.logFile, 'a');
  try {
    await log.write(`$ ${[command, ...args].join(' ')}\n`);
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', log.fd, log.fd] });
    return await new Promise<CommandResult>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, signal) => resolve({ code, signal }));
    });
  } finally {
    await log.close();
  }
}

/** Whether `command` names an executable on PATH, or is a path to one. */
export async function commandExists(command: string): Promise<boolean> {
  const candidates = command.includes('/')
    ? [command]
    : (process.env.PATH ?? '')
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.join(dir, command));
  for (const candidate of candidates) {
    try {
      await access(candidate, constants.X_OK);
      return true;
    } catch {
      // not in this PATH entry
    }
  }
  return false;
}
