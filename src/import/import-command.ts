import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { newSessionToken } from '../accounts/sessions.ts';
import { userClassDescriptor } from '../accounts/user-class.ts';
import { ConfigError, loadConfig } from '../config/load-config.ts';
import type { HeraldConfig } from '../config/schema.ts';
import { systemClock } from '../core/clock.ts';
import { createLogger } from '../core/logger.ts';
import type { Store } from '../core/ports/object-store.ts';
import { openStore } from '../runtime/open-store.ts';
import { ImportRun } from './import-run.ts';
import { ImportStateError } from './import-state.ts';
import { emptyImportStore, type ImportStore } from './import-store.ts';
import { ImportExit, exitCodeOf, formatSummary } from './import-summary.ts';
import { ProgressBar } from './progress-bar.ts';

export const importUsage = `Usage: herald import --app <id> [options] <file or folder>…

Imports the hosted service's class exports (JSON Lines, as its console
exports them, or a JSON array): _User and _Installation rows; other classes
are skipped, saying why. A folder stands for the .jsonl and .json files in it.

  --app <id>           the app to import into (one of the configured apps)
  --dry-run            check every row against the files and the store; write nothing
  --rejects <file>     rejected rows, JSON Lines (default herald-import-<app>.rejects.jsonl)
  --state <file>       the checkpoint of an interrupted import (default next to the rejects:
                       herald-import-<app>.state.json); run the same command to resume
  --restart            ignore the checkpoint and read every file from its start
  --concurrency <n>    writes in flight at once (default 64 on Cassandra, 8 on the embedded store);
                       on Cassandra the most statements in flight, fewer while it answers slowly
  --json               print the summary as JSON instead of text
  --help               print this help

Exit status: 0 all rows imported or already present, 3 some rows rejected,
130 interrupted (resumable), 1 failed, 2 bad arguments.
`;

export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  env: Readonly<Record<string, string | undefined>>;
  /** Where Ctrl-C comes from; tests send the signal themselves. */
  process: Pick<NodeJS.Process, 'on' | 'off'>;
}

interface CommandOptions {
  appId: string;
  files: string[];
  dryRun: boolean;
  rejectsPath: string;
  statePath: string;
  restart: boolean;
  concurrency: number | undefined;
  json: boolean;
}

/** `herald import …`: answers the exit status. */
export async function runImportCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  let options: CommandOptions | 'help';
  try {
    options = parseCommand(argv);
  } catch (error) {
    io.stderr.write(`herald import: ${(error as Error).message}\n\n${importUsage}`);
    return ImportExit.usage;
  }
  if (options === 'help') {
    io.stdout.write(importUsage);
    return ImportExit.done;
  }
  let config: HeraldConfig;
  try {
    config = loadConfig({ env: io.env }).config;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.stderr.write(`${error.message}\n`);
    return ImportExit.failed;
  }
  if (!config.apps.some((app) => app.id === options.appId)) {
    io.stderr.write(`herald import: app ${options.appId} is not configured here (configured: ${config.apps.map((app) => app.id).join(', ')})\n`);
    return ImportExit.usage;
  }
  const logger = createLogger({ level: 'warn' }, io.stderr);
  let store: Store | null;
  try {
    store = await openImportStore(config, options.dryRun, logger);
  } catch (error) {
    io.stderr.write(`herald import: cannot open the ${config.store.kind} store: ${(error as Error).message}\n`);
    return ImportExit.failed;
  }
  const target: ImportStore = store ?? emptyImportStore;

  const stop = new AbortController();
  const onSignal = (): void => {
    if (stop.signal.aborted) return;
    stop.abort();
    io.stderr.write('\nStopping after the rows in flight; the checkpoint is kept (Ctrl-C again does not hurry it).\n');
  };
  io.process.on('SIGINT', onSignal);
  io.process.on('SIGTERM', onSignal);
  const run = new ImportRun(
    {
      appId: options.appId,
      files: options.files,
      dryRun: options.dryRun,
      rejectsPath: options.rejectsPath,
      statePath: options.statePath,
      restart: options.restart,
      concurrency: options.concurrency ?? (config.store.kind === 'cassandra' ? 64 : 8),
      signal: stop.signal,
    },
    { store: target, clock: systemClock, newSessionToken },
  );
  const bar = io.stderr.isTTY && !options.json ? new ProgressBar(io.stderr, run.progress, () => systemClock.now()) : null;
  bar?.start();
  try {
    const summary = await run.run();
    bar?.stop();
    io.stdout.write(options.json ? `${JSON.stringify(summary, null, 2)}\n` : formatSummary(summary));
    return exitCodeOf(summary);
  } catch (error) {
    // Found before any row was read: a file that cannot be opened, a state file that does not fit.
    bar?.stop();
    io.stderr.write(`herald import: ${error instanceof ImportStateError ? error.message : String(error instanceof Error ? (error.stack ?? error.message) : error)}\n`);
    return ImportExit.failed;
  } finally {
    io.process.off('SIGINT', onSignal);
    io.process.off('SIGTERM', onSignal);
    await store?.close();
  }
}

function parseCommand(argv: readonly string[]): CommandOptions | 'help' {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: {
      app: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      rejects: { type: 'string' },
      state: { type: 'string' },
      restart: { type: 'boolean', default: false },
      concurrency: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return 'help';
  const appId = values.app;
  if (appId === undefined || appId === '') throw new Error('--app <id> is required');
  if (positionals.length === 0) throw new Error('name at least one export file or folder');
  let concurrency: number | undefined;
  if (values.concurrency !== undefined) {
    concurrency = Number(values.concurrency);
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1024) throw new Error(`--concurrency must be an integer from 1 to 1024, not ${values.concurrency}`);
  }
  const rejectsPath = resolve(values.rejects ?? `herald-import-${appId}.rejects.jsonl`);
  const statePath = resolve(values.state ?? join(dirname(rejectsPath), `herald-import-${appId}.state.json`));
  const ownFiles = new Set([rejectsPath, statePath]);
  const files = positionals.flatMap((path) => exportFilesAt(path).filter((file) => !ownFiles.has(resolve(file)) || path === file));
  const clash = files.find((file) => ownFiles.has(resolve(file)));
  if (clash !== undefined) throw new Error(`${clash} is where this import writes its rejects or checkpoint, not an export file`);
  return {
    appId,
    files,
    dryRun: values['dry-run'],
    rejectsPath,
    statePath,
    restart: values.restart,
    concurrency,
    json: values.json,
  };
}

/** A file as given; a folder as the export files in it, by name (the import's own reject and state files left out by the caller). */
function exportFilesAt(path: string): string[] {
  if (!existsSync(path)) throw new Error(`no such file or folder: ${path}`);
  if (!statSync(path).isDirectory()) return [path];
  const names = readdirSync(path)
    .filter((name) => /\.(jsonl|json|ndjson)$/i.test(name))
    .sort();
  if (names.length === 0) throw new Error(`the folder ${path} holds no .jsonl or .json files`);
  return names.map((name) => join(path, name));
}

/**
 * The configured store, as `herald serve` opens it. A dry run on the
 * embedded store whose database does not exist yet compares with an empty
 * store (null) rather than creating the database.
 */
async function openImportStore(config: HeraldConfig, dryRun: boolean, logger: ReturnType<typeof createLogger>): Promise<Store | null> {
  if (dryRun && config.store.kind === 'sqlite' && !existsSync(join(config.dataDir, 'herald.sqlite'))) return null;
  return openStore(config.store, {
    dataDir: config.dataDir,
    classes: { _User: userClassDescriptor },
    clock: systemClock,
    logger,
    installationShards: config.push.installationShards,
    pushRetentionMs: config.push.retentionDays * 24 * 60 * 60 * 1000,
  });
}
