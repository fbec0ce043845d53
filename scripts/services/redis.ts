import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { LocalService, Report } from './local-service.ts';
import type { ProcessSpec } from './managed-process.ts';
import { redisPing } from './redis-ping.ts';
import { commandExists, runCommand } from './run-command.ts';
import { ServiceError } from './service-error.ts';

export interface RedisServiceOptions {
  readonly dir: string;
  readonly host: string;
  readonly port: number;
}

const redisServer = 'redis-server';

/**
 * Debian's `redis-server` in the foreground, installed with apt when missing.
 * It keeps an append-only file, as Herald's Redis must in production: account
 * locks and other limits live there and must survive a restart.
 */
export class RedisService implements LocalService {
  readonly name = 'redis';
  readonly dir: string;
  readonly ports: readonly number[];
  private readonly options: RedisServiceOptions;

  constructor(options: RedisServiceOptions) {
    this.options = options;
    this.dir = options.dir;
    this.ports = [options.port];
  }

  async provision(report: Report): Promise<void> {
    await mkdir(this.options.dir, { recursive: true });
    if (!(await commandExists(redisServer))) await this.installWithApt(report);
  }

  command(): ProcessSpec {
    return {
      command: redisServer,
      args: [
        '--port', String(this.options.port),
        '--bind', this.options.host,
        '--save', '',
        '--appendonly', 'yes',
        '--appendfsync', 'everysec',
        '--daemonize', 'no',
        // Keep argv as given: `down` recognises its process by /proc/<pid>/cmdline.
        '--set-proc-title', 'no',
        '--dir', this.options.dir,
      ],
      cwd: this.options.dir,
    };
  }

  async isReady(): Promise<string> {
    const version = await redisPing(this.options.host, this.options.port, 2_000);
    return `Redis ${version} on ${this.options.host}:${this.options.port}`;
  }

  private async installWithApt(report: Report): Promise<void> {
    const asRoot = process.getuid?.() === 0;
    if (!asRoot && !(await commandExists('sudo'))) {
      throw new ServiceError(this.name, `${redisServer} is not installed and this user cannot run apt-get; install it (Debian: apt-get install redis-server)`);
    }
    report(`${redisServer} is missing; installing it with apt-get`);
    const logFile = path.join(this.options.dir, 'apt.log');
    await rm(logFile, { force: true });
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    // sudo resets the environment, so the frontend goes through env(1).
    const aptGet = (...args: string[]) =>
      asRoot
        ? runCommand('apt-get', args, { cwd: this.options.dir, logFile, env })
        : runCommand('sudo', ['-n', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args], { cwd: this.options.dir, logFile, env });
    const install = ['install', '-y', '-q', '--no-install-recommends', redisServer];
    let result = await aptGet(...install);
    // A fresh machine may have no package lists yet.
    if (result.code !== 0) {
      await aptGet('update', '-q');
      result = await aptGet(...install);
    }
    if (result.code !== 0 || !(await commandExists(redisServer))) {
      throw await ServiceError.withLogTail(this.name, `apt-get install ${redisServer} failed`, logFile);
    }
  }
}
