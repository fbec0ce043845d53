import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { eventually } from './eventually.ts';

/** A throwaway `redis-server` owned by one test file, for outage tests. */
export interface RedisProcess {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /** Kills the server with SIGKILL, as a crash would, and waits for it to exit; harmless when it is not running. */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty, unless `appendOnlyDir` persists its data) and waits until it answers PING. */
  start(): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open but nothing is answered. */
  pause(): void;
  /** Lets a paused server run again (SIGCONT). */
  resume(): void;
}

export interface RedisProcessOptions {
  /** Default: a free port chosen by the system. */
  port?: number;
  /** How long `start` waits for PING to succeed; default 10 s. */
  startTimeoutMs?: number;
  /**
   * Keep data across restarts with an append-only file fsynced on every write,
   * as production Redis must run for Herald; default: nothing is persisted.
   */
  appendOnlyDir?: string;
}

/** Starts `redis-server` on a loopback port, without persistence unless asked, and waits until it answers PING. */
export async function startRedisProcess(options: RedisProcessOptions = {}): Promise<RedisProcess> {
  const port = options.port ?? (await freePort());
  const startTimeoutMs = options.startTimeoutMs ?? 10_000;
  let child: ChildProcess | null = null;
  // A test that dies halfway must not leave a server behind.
  const killOnExit = (): void => {
    child?.kill('SIGKILL');
  };
  process.on('exit', killOnExit);

  const server: RedisProcess = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      if (child !== null) throw new Error(`redis-server on port ${port} is already running`);
      const started = spawnRedis(port, options.appendOnlyDir);
      child = started.child;
      started.child.once('exit', () => {
        if (child === started.child) child = null;
      });
      try {
        await waitForPing(port, startTimeoutMs, started);
      } catch (error) {
        started.child.kill('SIGKILL');
        throw error;
      }
    },
    async stop() {
      const running = child;
      if (running === null) return;
      const exited = once(running, 'exit');
      running.kill('SIGKILL');
      await exited;
      child = null;
    },
    pause() {
      signal(child, 'SIGSTOP');
    },
    resume() {
      signal(child, 'SIGCONT');
    },
  };
  await server.start();
  return server;
}

interface Spawned {
  child: ChildProcess;
  /** The last of what the server printed, for the error when it does not come up. */
  output(): string;
  exited: boolean;
}

function spawnRedis(port: number, appendOnlyDir: string | undefined): Spawned {
  const persistence = appendOnlyDir === undefined ? ['--appendonly', 'no', '--dir', tmpdir()] : ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', appendOnlyDir];
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-2000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const spawned: Spawned = { child, output: () => output, exited: false };
  child.once('exit', () => {
    spawned.exited = true;
  });
  child.once('error', (error) => {
    output += `\n${error.message}`;
    spawned.exited = true;
  });
  return spawned;
}

/** Retries PING until it is answered, the server exits, or the deadline passes. */
async function waitForPing(port: number, timeoutMs: number, spawned: Spawned): Promise<void> {
  await eventually(
    `redis-server on port ${port} to answer PING`,
    () => answersPing(port),
    (answered) => {
      if (spawned.exited) throw new Error(`redis-server on port ${port} exited while starting:\n${spawned.output()}`);
      return answered;
    },
    { timeoutMs, detail: () => `it printed:\n${spawned.output()}` },
  );
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const finish = (answered: boolean): void => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(500, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG'));
    });
  });
}

function signal(child: ChildProcess | null, name: NodeJS.Signals): void {
  if (child === null) throw new Error('redis-server is not running');
  child.kill(name);
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no port was assigned');
  return address.port;
}
