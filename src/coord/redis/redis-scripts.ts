import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import type { AttemptLimit, AttemptReservation } from '../../core/ports/coordination.ts';
import type { TokenGrant, TokenRequest } from '../../core/ports/token-buckets.ts';

/** The Lua scripts in `scripts/`, by command name; the number in a file name is its key count. */
const scriptFiles = {
  take: 'take-1.lua',
  setIfAbsent: 'set-if-absent-1.lua',
  recordEvent: 'record-event-1.lua',
  reserveAttempt: 'reserve-attempt-3.lua',
  tokenBucket: 'token-bucket-1.lua',
} as const;

type ScriptName = keyof typeof scriptFiles;
type ScriptCommand = (...args: Array<string | number>) => Promise<unknown>;

interface ScriptSource {
  name: ScriptName;
  numberOfKeys: number;
  lua: string;
}

// Read once per process; each client registers them with `defineCommand`,
// which runs them by SHA and loads them into a server that lacks them.
const sources: readonly ScriptSource[] = Object.entries(scriptFiles).map(([name, file]) => loadScript(name as ScriptName, file));

/** Where the attempts of `windowKey` still pending are kept (reserve-attempt-3.lua). */
export function pendingAttemptsKey(windowKey: string): string {
  return `${windowKey}:pending`;
}

/**
 * The atomic operations of `RedisCoordination`, one Lua script each. This is
 * the one place where script replies become typed values; a reply of the wrong
 * shape is a bug and throws.
 */
export class RedisScripts {
  readonly #redis: Redis;

  constructor(redis: Redis) {
    this.#redis = redis;
    for (const { name, numberOfKeys, lua } of sources) redis.defineCommand(name, { numberOfKeys, lua });
  }

  async take(key: string): Promise<string | null> {
    const reply = await this.#run('take', key);
    if (reply === null || typeof reply === 'string') return reply;
    throw unexpectedReply('take', reply);
  }

  async setIfAbsent(key: string, encoded: string, now: number, ttlMs: number): Promise<boolean> {
    const reply = await this.#run('setIfAbsent', key, encoded, now, Math.ceil(ttlMs));
    if (reply === 0 || reply === 1) return reply === 1;
    throw unexpectedReply('setIfAbsent', reply);
  }

  async reserveAttempt(windowKey: string, lockKey: string | null, limit: AttemptLimit, member: string): Promise<AttemptReservation> {
    const { now, windowMs, max, lockMs } = limit;
    const pendingMs = limit.pendingMs ?? 0;
    // Keys a call does not use are never touched; the window key stands in for them.
    const reply = await this.#run(
      'reserveAttempt',
      windowKey,
      lockKey ?? windowKey,
      pendingMs > 0 ? pendingAttemptsKey(windowKey) : windowKey,
      now,
      windowMs,
      max,
      lockMs,
      member,
      lockKey === null ? 0 : 1,
      pendingMs,
    );
    if (Array.isArray(reply) && reply.length === 4 && reply.every((part) => typeof part === 'number')) {
      const [allowed, count, lockedUntil, busy] = reply as [number, number, number, number];
      return { allowed: allowed === 1, count, lockedUntil, busy: busy === 1, attempt: allowed === 1 ? member : '' };
    }
    throw unexpectedReply('reserveAttempt', reply);
  }

  async recordEvent(key: string, now: number, windowMs: number, member: string): Promise<number> {
    const reply = await this.#run('recordEvent', key, now, windowMs, member);
    if (typeof reply === 'number') return reply;
    throw unexpectedReply('recordEvent', reply);
  }

  async tokenBucket(key: string, request: TokenRequest): Promise<TokenGrant> {
    const { ratePerSecond, burst, requested, now } = request;
    const reply = await this.#run('tokenBucket', key, ratePerSecond, burst, requested, now, request.returned ?? 0);
    if (Array.isArray(reply) && reply.length === 2) {
      const granted: unknown = reply[0];
      const retryAfterMs: unknown = reply[1];
      if (typeof granted === 'number' && typeof retryAfterMs === 'number') return { granted, retryAfterMs };
    }
    throw unexpectedReply('tokenBucket', reply);
  }

  #run(name: ScriptName, ...args: Array<string | number>): Promise<unknown> {
    // `defineCommand` in the constructor added the method; ioredis cannot type it.
    const command = Reflect.get(this.#redis, name) as ScriptCommand;
    return command.apply(this.#redis, args);
  }
}

function loadScript(name: ScriptName, file: string): ScriptSource {
  const keys = /-(\d+)\.lua$/.exec(file)?.[1];
  if (keys === undefined) throw new Error(`script file ${file} does not end in -<key count>.lua`);
  return { name, numberOfKeys: Number(keys), lua: readFileSync(new URL(`./scripts/${file}`, import.meta.url), 'utf8') };
}

function unexpectedReply(script: ScriptName, reply: unknown): Error {
  return new Error(`unexpected reply from the ${script} script: ${JSON.stringify(reply)}`);
}
