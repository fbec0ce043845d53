import type { Clock } from '../../core/clock.ts';
import { isoTime } from '../../core/clock.ts';
import { newObjectId } from '../../core/ids.ts';
import type { Logger } from '../../core/logger.ts';
import type { ObjectStore, StoredObject } from '../../core/ports/object-store.ts';
import { queryAll, type Condition } from '../../query/query.ts';
import type { AuditEntry, AuditLog, AuditQuery } from './audit-log.ts';

/**
 * The namespace the audit log is kept under in the object store: a dot
 * cannot be in an app id, so no app, and no app's master key, can reach it.
 */
export const consoleNamespace = 'herald.console';
export const auditClass = 'ConsoleAudit';

/** How often one process removes entries past their retention, at most. */
const purgeIntervalMs = 60 * 60 * 1000;
/** Entries removed per purge, so a purge stays short. */
const purgeBatch = 500;

/**
 * The audit log in the deployment's store (SQLite, or Cassandra shared by
 * every node), one object per entry. Entries older than the retention are
 * removed by the writing node, at most once an hour. Reading scans the
 * log and keeps the newest `limit`, so its cost grows with the entries kept
 * (the retention bounds them).
 */
export class StoreAuditLog implements AuditLog {
  readonly #store: ObjectStore;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #retentionMs: number;
  #lastPurge = 0;

  constructor(deps: { store: ObjectStore; clock: Clock; logger: Logger }, retentionDays: number) {
    this.#store = deps.store;
    this.#clock = deps.clock;
    this.#logger = deps.logger;
    this.#retentionMs = retentionDays * 24 * 60 * 60 * 1000;
  }

  async record(entry: AuditEntry): Promise<void> {
    const object: StoredObject = { objectId: newObjectId(), createdAt: entry.at, updatedAt: entry.at, ...entryFields(entry) };
    await this.#store.insert(consoleNamespace, auditClass, object);
    const now = this.#clock.now();
    if (now - this.#lastPurge >= purgeIntervalMs) {
      this.#lastPurge = now;
      this.#purge(now).catch((error: unknown) => this.#logger.warn({ err: error }, 'could not remove old console audit entries'));
    }
  }

  async list(query: AuditQuery): Promise<AuditEntry[]> {
    const where: Condition | null = query.apps === '*' ? null : { kind: 'field', path: ['app'], predicates: [{ op: 'in', values: [...query.apps] }] };
    const found = await this.#store.find(consoleNamespace, auditClass, queryAll({ where, order: [{ path: ['createdAt'], descending: true }], limit: query.limit }));
    return found.results.map(toEntry);
  }

  async #purge(now: number): Promise<void> {
    const cutoff = isoTime(now - this.#retentionMs);
    const oldest = await this.#store.find(consoleNamespace, auditClass, queryAll({ order: [{ path: ['createdAt'], descending: false }], limit: purgeBatch, keys: [] }));
    for (const object of oldest.results) {
      if (object.createdAt >= cutoff) break;
      await this.#store.delete(consoleNamespace, auditClass, object.objectId);
    }
  }
}

function entryFields(entry: AuditEntry): Record<string, unknown> {
  return { actor: entry.actor, action: entry.action, app: entry.app, target: entry.target, outcome: entry.outcome, detail: entry.detail };
}

function toEntry(object: StoredObject): AuditEntry {
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  const orNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);
  return {
    at: object.createdAt,
    actor: text(object.actor),
    action: text(object.action),
    app: orNull(object.app),
    target: orNull(object.target),
    outcome: text(object.outcome),
    detail: text(object.detail),
  };
}
