import type { Clock } from '../../core/clock.ts';
import type { ClassDescriptors } from '../../core/ports/object-store.ts';

export interface SqliteStoreOptions {
  /** Path of the database file, or `:memory:`. */
  file: string;
  /** Unique-key rules per class; classes without one have no unique keys. */
  classes: ClassDescriptors;
  /**
   * How long a write waits for another connection's lock before failing with
   * 503 (ServiceUnavailableError). Default 5000 ms.
   */
  busyTimeoutMs?: number;
  /**
   * `PRAGMA synchronous`. `normal` (default; WAL mode): commits are not
   * fsynced, so a power cut or OS crash may lose the last ones, never a
   * process crash, and the database stays consistent. `full`: an fsync per
   * commit, which costs milliseconds on the push engine's per-slice writes.
   */
  synchronous?: 'normal' | 'full';
  /** Time source for purging expired tokens when new ones are put, and for stamping push results. Default: the system clock. */
  clock?: Clock;
  /**
   * Installation shards per app (see InstallationStore). Recorded when the
   * database is created; opening it with another count is refused. Default 64.
   */
  installationShards?: number;
  /**
   * A file that marks this process as the store's only user (see
   * ProcessLock); another process opening the store with the same file is
   * refused. Default: none (tests open several connections on purpose).
   */
  processLockFile?: string;
}
