import { createHash } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { LocalService, Report } from './local-service.ts';
import type { ProcessSpec } from './managed-process.ts';
import { redisPing } from './redis-ping.ts';
import { commandExists, runCommand } from './run-command.ts';
import { ensureSecuredCredentials } from './secured-credentials.ts';
import { ServiceError } from './service-error.ts';
import { ensureTlsMaterial, securedTlsMaterial } from './test-ca.ts';

export interface RedisServiceOptions {
  readonly dir: string;
  readonly host: string;
  readonly port: number;
  /** The TLS port, beside the plain one. */
  readonly tlsPort: number;
  /** The secured folder: the test CA's files and the users' passwords. */
  readonly securedDir: string;
}

/**
 * What the ACL user may do: the commands Herald sends (its Lua scripts and
 * redlock's included, since ACLs hold inside scripts too) on keys under
 * Herald's default prefix, and nothing else. docs/secured-backends.md shows
 * the same rule to operators.
 */
export const heraldAclRule =
  'resetkeys ~herald:* resetchannels -@all +ping +info +client|setname +quit +get +set +del +exists +pexpire +hmget +hset +zadd +zcard +zremrangebyscore +eval +evalsha +script|load';

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
    this.ports = [options.port, options.tlsPort];
  }

  async provision(report: Report): Promise<void> {
    await mkdir(this.options.dir, { recursive: true });
    if (!(await commandExists(redisServer))) await this.installWithApt(report);
    await ensureTlsMaterial(securedTlsMaterial(this.options.securedDir).dir, report);
    for (const [file, text] of await this.configFiles()) await writeFile(file, text, { mode: 0o600 });
  }

  /**
   * The ACL file: the default user keeps the open port working for the rest
   * of the suite; the ACL user has a password (stored hashed) and the rule
   * above.
   */
  async configFiles(): Promise<ReadonlyMap<string, string>> {
    const { redis } = await ensureSecuredCredentials(this.options.securedDir);
    const hash = createHash('sha256').update(redis.password).digest('hex');
    const acl = `user default on nopass ~* &* +@all\nuser ${redis.username} on #${hash} ${heraldAclRule}\n`;
    return new Map([[this.aclFile, acl]]);
  }

  command(): ProcessSpec {
    const tls = securedTlsMaterial(this.options.securedDir);
    return {
      command: redisServer,
      args: [
        '--port', String(this.options.port),
        '--bind', this.options.host,
        // Debian's redis-server is built with TLS: one server answers plain and TLS clients.
        '--tls-port', String(this.options.tlsPort),
        '--tls-cert-file', tls.serverCert,
        '--tls-key-file', tls.serverKey,
        '--tls-ca-cert-file', tls.caCert,
        // A client certificate is checked when one is sent, and not required.
        '--tls-auth-clients', 'optional',
        '--aclfile', this.aclFile,
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
    return `Redis ${version} on ${this.options.host}:${this.options.port}, TLS on ${this.options.tlsPort}`;
  }

  private get aclFile(): string {
    return path.join(this.options.dir, 'users.acl');
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
