import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { ConfigError } from '../../config/load-config.ts';

/**
 * One process per embedded store: a file holding the owner's pid, made with
 * O_EXCL. A file left by a process that died (or by this very process, as
 * pid 1 in a restarted container) is taken over. A second Herald on the same
 * data directory is refused at start, because each would keep its own
 * in-memory locks, limits and bus beside the shared file.
 */
export class ProcessLock {
  readonly #file: string;
  #held = false;

  private constructor(file: string) {
    this.#file = file;
  }

  /** Takes the lock, or throws a ConfigError naming the process that holds it. */
  static acquire(file: string): ProcessLock {
    const lock = new ProcessLock(file);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
        lock.#held = true;
        return lock;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const owner = readOwner(file);
      if (owner !== null && owner !== process.pid && isAlive(owner)) {
        throw new ConfigError(
          `Another Herald process (pid ${owner}) uses the embedded store in this data directory (${file}). ` +
            'The embedded backends serve one process: stop the other one, give this one its own HERALD_DATA_DIR, or run several nodes on Cassandra, Redis and Kafka.',
        );
      }
      // Left by a process that is gone: take it over.
      unlinkSync(file);
    }
    throw new ConfigError(`Could not take the process lock ${file}: another process keeps recreating it`);
  }

  /** Removes the file if it is still ours; idempotent. */
  release(): void {
    if (!this.#held) return;
    this.#held = false;
    try {
      if (readOwner(this.#file) === process.pid) unlinkSync(this.#file);
    } catch {
      // Already gone: nothing to release.
    }
  }
}

function readOwner(file: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
