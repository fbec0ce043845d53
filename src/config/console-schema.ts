import { z } from 'zod';

/** What a console account may do: `viewer` reads; `operator` also sends and cancels pushes, unlocks accounts, deletes devices and sends account mail; `admin` also sees settings and the audit log. */
export const consoleRoles = ['viewer', 'operator', 'admin'] as const;

export type ConsoleRole = (typeof consoleRoles)[number];

/** Console usernames: what a person types, and nothing a log line or a coordination key could trip on. */
export const consoleUsernamePattern = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

const consoleAccountSchema = z
  .object({
    username: z.string().regex(consoleUsernamePattern, 'letters, digits, ., _, @ and -, starting with a letter or digit, at most 64 characters'),
    passwordHash: z
      .string()
      .regex(/^\$argon2id\$v=\d+\$[a-z]=\d+(,[a-z]=\d+)*\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/, 'an argon2id hash, as `herald console-user` prints it')
      .describe('argon2id hash of the password, made by `herald console-user`'),
    role: z.enum(consoleRoles).describe('viewer, operator or admin'),
    apps: z
      .array(z.string().regex(/^(\*|[A-Za-z0-9_-]{1,64})$/, 'an app id, or * for every app'))
      .min(1)
      .default(['*'])
      .describe('the apps the account sees: app ids, or * for every app'),
  })
  .strict();

export type ConsoleAccount = z.output<typeof consoleAccountSchema>;

/**
 * How many proxies in front of Herald to trust for the client's protocol
 * and address (`X-Forwarded-Proto`, `X-Forwarded-Host`, `X-Forwarded-For`):
 * false for none, true for all, or a number of hops. Environment variables
 * are text, so `true`, `false` and digits are read here.
 */
const trustProxySchema = z
  .preprocess(
    (value) => {
      if (typeof value !== 'string') return value;
      if (/^\d+$/.test(value)) return Number(value);
      if (/^(true|yes|on)$/i.test(value)) return true;
      if (/^(false|no|off)$/i.test(value)) return false;
      return value;
    },
    z.union([z.boolean(), z.number().int().min(0).max(16)], { error: 'true, false, or a number of proxies' }),
  )
  .default(false);

/** The web console (`console` in the config file; docs/console.md). */
export const consoleSchema = z
  .object({
    enabled: z.boolean().default(true).describe('serve the console; off serves none'),
    port: z
      .number()
      .int()
      .min(0)
      .max(65535)
      .optional()
      .describe('serve the console on this port only (at /console), not on the API port; 0 picks a free one'),
    host: z.string().min(1).optional().describe('address of the console port; default: the same as host'),
    trustProxy: trustProxySchema.describe('proxies in front of Herald to trust for X-Forwarded-Proto/-Host/-For: false, true or a number of hops'),
    sessionIdleMinutes: z.number().int().min(5).max(24 * 60).default(30).describe('a console session unused this long ends'),
    sessionMaxHours: z.number().int().min(1).max(7 * 24).default(12).describe('a console session ends this long after sign-in, used or not'),
    auditRetentionDays: z.number().int().min(1).max(3650).default(365).describe('days the audit log keeps an entry'),
    accounts: z.array(consoleAccountSchema).default([]).describe('who may sign in: username, passwordHash (herald console-user), role and apps'),
  })
  .strict()
  .superRefine((console, ctx) => {
    const seen = new Set<string>();
    console.accounts.forEach((account, index) => {
      if (seen.has(account.username)) ctx.addIssue({ code: 'custom', message: `duplicate console username ${account.username}`, path: ['accounts', index, 'username'] });
      seen.add(account.username);
    });
  });

export type ConsoleConfig = z.output<typeof consoleSchema>;
