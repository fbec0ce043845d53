import { mkdir, open, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * Runs `task` holding `<dir>/.lock`, so two `up`/`down` commands on one
 * services folder (a developer's terminal and a test run, say) take turns
 * instead of starting a service twice. A lock whose holder has died is taken
 * over.
 */
export async function withDirLock<T>(
  dir: string,
  options: { timeoutMs: number; onWait: (holder: number) => void },
  task: () => Promise<T>,
): Promise<T> {
  await mkdir(dir, { recursive: true });
  const lockFile = path.join(dir, '.lock');
  const deadline = Date.now() + options.timeoutMs;
  let announced = false;
  for (;;) {
    try {
      const handle = await open(lockFile, 'wx');
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number((await readFile(lockFile, 'utf8').catch(() => '')).trim());
    const valid = Number.isSafeInteger(holder) && holder > 0;
    // An empty lock is one being written right now, unless it has been empty for a while.
    if (valid ? !processExists(holder) : await olderThan(lockFile, 5_000)) {
      await rm(lockFile, { force: true });
      continue;
    }
    if (Date.now() >= deadline) throw new Error(`another services command (pid ${holder}) still holds ${lockFile}`);
    if (valid && !announced) {
      options.onWait(holder);
      announced = true;
    }
    await delay(250);
  }
  try {
    return await task();
  } finally {
    await rm(lockFile, { force: true });
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function olderThan(file: string, ageMs: number): Promise<boolean> {
  const stats = await stat(file).catch(() => undefined);
  return stats === undefined || Date.now() - stats.mtimeMs > ageMs;
}
