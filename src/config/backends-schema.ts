import { z } from 'zod';

/**
 * Where state lives: the embedded default (SQLite, in-memory coordination,
 * in-process bus) or the distributed services (Cassandra, Redis, Kafka).
 * A backend's kind may be left out when its connection setting is given:
 * `HERALD_REDIS_URL` alone selects Redis.
 */

const hostPort = z.string().regex(/^[^\s:,]+(:\d{1,5})?$/, 'expected host or host:port');

/** A keyspace replication: a factor (SimpleStrategy) or per-datacenter factors (NetworkTopologyStrategy). */
const replicationSchema = z.union([
  z.number().int().min(1).max(15),
  z.record(z.string().min(1), z.number().int().min(1).max(15)).refine((dcs) => Object.keys(dcs).length > 0, 'name at least one datacenter'),
]);

export const storeSchema = z.preprocess(
  (raw) => withInferredKind(raw, 'contactPoints', 'cassandra'),
  z
    .object({
      kind: z.enum(['sqlite', 'cassandra']).default('sqlite'),
      contactPoints: z.array(hostPort).min(1).optional().describe('Cassandra nodes, host:port'),
      localDataCenter: z.string().min(1).default('datacenter1'),
      keyspace: z
        .string()
        .regex(/^[a-z][a-z0-9_]{0,47}$/, 'lower-case letters, digits and _, starting with a letter')
        .default('herald'),
      replication: replicationSchema.default(1).describe('replication factor, or factors per datacenter'),
      username: z.string().min(1).optional(),
      password: z.string().min(1).optional(),
      requestTimeoutMs: z.number().int().min(100).max(120_000).default(5000),
      sqliteSync: z
        .enum(['normal', 'full'])
        .default('normal')
        .describe(
          'SQLite only: "full" makes every commit survive a power cut or OS crash (an fsync per commit); "normal" keeps the database consistent but may lose the last commits to a power cut or OS crash, never to a Herald crash',
        ),
    })
    .strict()
    .superRefine(requiredFor('cassandra', 'contactPoints', 'the store is cassandra')),
);

export const coordinationSchema = z.preprocess(
  (raw) => withInferredKind(raw, 'url', 'redis'),
  z
    .object({
      kind: z.enum(['memory', 'redis']).default('memory'),
      url: z
        .url()
        .refine((url) => /^rediss?:\/\//.test(url), 'expected redis:// or rediss://')
        .optional(),
      keyPrefix: z.string().max(64).default('herald:').describe('prefix of every Redis key Herald writes'),
    })
    .strict()
    .superRefine(requiredFor('redis', 'url', 'coordination is redis')),
);

export const busSchema = z.preprocess(
  (raw) => withInferredKind(raw, 'brokers', 'kafka'),
  z
    .object({
      kind: z.enum(['memory', 'kafka']).default('memory'),
      brokers: z.array(hostPort).min(1).optional().describe('Kafka bootstrap brokers, host:port'),
      clientId: z.string().min(1).default('herald'),
      topicPrefix: z
        .string()
        .regex(/^[A-Za-z0-9._-]{0,64}$/, 'letters, digits, ., _ and -')
        .default('')
        .describe('put before every topic name and consumer group, so that several Herald deployments can share a Kafka cluster'),
      sessionTimeoutMs: z
        .number()
        .int()
        .min(6000)
        .max(300_000)
        .default(30_000)
        .describe('(Kafka\'s group.min.session.timeout.ms is 6 s) a consumer that sends no heartbeat for this long is dropped and its partitions go to the others'),
      topics: z
        .object({
          pushRequests: z.number().int().min(1).max(1024).default(6).describe('partitions of push.requests'),
          pushTasks: z.number().int().min(1).max(4096).default(24).describe('partitions of push.tasks: the most sender actors that work at once'),
        })
        .strict()
        .default({ pushRequests: 6, pushTasks: 24 }),
    })
    .strict()
    .superRefine(requiredFor('kafka', 'brokers', 'the bus is kafka')),
);

export type StoreConfig = z.output<typeof storeSchema>;
export type CoordinationConfig = z.output<typeof coordinationSchema>;
export type BusConfig = z.output<typeof busSchema>;

/** A refinement that requires the connection setting `field` when `kind` is chosen. */
function requiredFor<K extends string>(kind: K, field: string, when: string) {
  return (backend: { kind: string } & Record<string, unknown>, ctx: z.RefinementCtx): void => {
    if (backend.kind === kind && backend[field] === undefined) ctx.addIssue({ code: 'custom', message: `required when ${when}`, path: [field] });
  };
}

function withInferredKind(raw: unknown, connectionKey: string, kind: string): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw ?? {};
  const object = raw as Record<string, unknown>;
  if (object.kind === undefined && object[connectionKey] !== undefined) return { ...object, kind };
  return raw;
}
