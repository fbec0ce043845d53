import type { PushTopics } from '../push-topics.ts';
import type { Clock } from '../../core/clock.ts';
import { isoTime } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { BusMessage, HandlerContext, OutgoingMessage } from '../../core/ports/bus.ts';
import type { Store } from '../../core/ports/object-store.ts';
import type { PushDoc } from '../../core/ports/push-store.ts';
import { parseWhere } from '../../query/parse-query.ts';
import { withTokenCaseInWhere } from '../../devices/device-token-case.ts';
import { planInstallationScan, type ScanPlan } from '../../devices/installation-scan.ts';
import { decodeRequest, encodeMessage, taskKey, type PushTaskMessage, type TaskScope } from '../push-messages.ts';
import type { PushSpec } from '../push-spec.ts';
import { giveUpPush, worthRetrying } from '../give-up.ts';
import { RecordField, specOfRecord } from '../records/push-record.ts';
import type { AppGateways } from '../gateways/app-gateways.ts';
import type { PushEnds } from '../outcomes/push-ends.ts';
import { devPushLimitMessage, exceedsDevPushLimit } from './dev-push-limit.ts';
import { noGatewayMessage } from './no-gateway-message.ts';

export interface FanOutDeps {
  store: Store;
  bus: { publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> };
  topics: PushTopics;
  clock: Clock;
  logger: Logger;
  /** Installations per task slice, and per page when counting a development audience. */
  sliceSize: number;
  /** Installations saved longer ago than this are not targeted. */
  idleMs: number;
  /** The gateways each app's config gives it; undefined for an app the config does not name. */
  appGateways(appId: string): AppGateways | undefined;
  /** Told when a push may have ended: settled with its tasks (which may all be done already), with none, or given up (push.done webhooks). */
  pushEnds?: PushEnds;
}

/**
 * The fan-out: turns one push request from `push.requests` into tasks on
 * `push.tasks` — a device list into batches, a query into one task per shard
 * of each index part the audience plan reads — and marks the record
 * `in-queue` with the number of tasks, by which it reads `done` once every
 * task has ended.
 *
 * Redelivery is harmless: a record that already has its tasks is left alone,
 * and tasks published twice (a crash between publishing and marking) are
 * recognised by the senders, which skip slices already reported. A record
 * that is gone was cancelled; nothing is published for it.
 */
export class FanOut {
  readonly #deps: FanOutDeps;

  constructor(deps: FanOutDeps) {
    this.#deps = deps;
  }

  async handle(message: BusMessage, context?: HandlerContext): Promise<void> {
    const request = decodeRequest(message.value);
    if (request === null) {
      this.#deps.logger.error({ topic: message.topic, offset: message.offset }, 'unreadable push request skipped');
      return;
    }
    try {
      await this.#fanOut(request.appId, request.pushId);
    } catch (error) {
      // An outage or a rebalance: the bus offers the request again. A fault: the push is settled as failed.
      if (worthRetrying(error, context?.signal)) throw error;
      const { store, clock, logger } = this.#deps;
      await giveUpPush({ pushes: store.pushes, clock, logger }, request, error);
      this.#deps.pushEnds?.mayHaveEnded(request.appId, request.pushId);
    }
  }

  async #fanOut(appId: string, pushId: string): Promise<void> {
    const record = await this.#deps.store.pushes.getRecord(appId, pushId);
    if (record === null || typeof record[RecordField.expectedTasks] === 'number' || record.status === 'Error') return;
    const spec = specOfRecord(record);
    if (spec === null) {
      await this.#settle(appId, record, { status: 'Error', errorMessage: 'The push record has no sending details.', expectedTasks: 0 });
      return;
    }
    const now = this.#deps.clock.now();
    if (spec.expiresAt !== null && spec.expiresAt <= now) {
      await this.#settle(appId, record, { status: 'in-queue', expectedTasks: 0, errorMessage: 'The push expired before it was sent.' });
      return;
    }
    const tasks = await this.#tasks(appId, pushId, spec, now);
    if (tasks === 'over-dev-limit') {
      await this.#settle(appId, record, { status: 'Error', errorMessage: devPushLimitMessage, expectedTasks: 0 });
      this.#deps.logger.info({ app: appId, push: pushId }, 'development push over the device limit rejected');
      return;
    }
    if (tasks.length > 0) {
      await this.#deps.bus.publish(this.#deps.topics.tasks, tasks.map((task) => ({ key: taskKey(task), value: encodeMessage(task) })));
    }
    // Said here, once per push and before any slice, rather than by the senders: the config says it, whatever the audience.
    const gateways = this.#deps.appGateways(appId);
    const errorMessage = gateways === undefined ? undefined : noGatewayMessage(spec, gateways);
    await this.#settle(appId, record, errorMessage === undefined ? { status: 'in-queue', expectedTasks: tasks.length } : { status: 'in-queue', expectedTasks: tasks.length, errorMessage });
    if (errorMessage !== undefined) this.#deps.logger.warn({ app: appId, push: pushId, errorMessage }, 'push can reach no configured gateway: each device it targets counts an error');
  }

  async #tasks(appId: string, pushId: string, spec: PushSpec, now: number): Promise<PushTaskMessage[] | 'over-dev-limit'> {
    const base = { appId, pushId, slice: 0, cursor: null, spec };
    const { target } = spec;
    if (target.kind === 'devices') {
      const tasks: PushTaskMessage[] = [];
      for (let start = 0; start < target.ids.length; start += this.#deps.sliceSize) {
        tasks.push({ ...base, taskId: `d${start / this.#deps.sliceSize}`, scope: { kind: 'devices', ids: target.ids.slice(start, start + this.#deps.sliceSize) } });
      }
      return tasks;
    }
    const where = withTokenCaseInWhere(parseWhere(target.where ?? undefined));
    const plan = planInstallationScan(where);
    const installations = this.#deps.store.installations;
    if (spec.environment === 'dev' && target.platforms.includes('ios')) {
      const rules = { where, activeSince: now - this.#deps.idleMs };
      if (await exceedsDevPushLimit(installations, appId, plan, rules, this.#deps.sliceSize)) return 'over-dev-limit';
    }
    return taskScopes(plan, installations.shardCount).map(({ taskId, scope }) => ({ ...base, taskId, scope }));
  }

  async #settle(appId: string, record: PushDoc, fields: Record<string, unknown>): Promise<void> {
    await this.#deps.store.pushes.setFields(appId, record.objectId, fields, isoTime(this.#deps.clock.now()));
    this.#deps.pushEnds?.mayHaveEnded(appId, record.objectId);
  }
}

/**
 * The tasks of a query push: one per shard of each index the plan reads (an
 * installation in an earlier index is skipped by the later ones), one lookup
 * when the query pins a single device, none when it can match nothing.
 */
export function taskScopes(plan: ScanPlan, shardCount: number): { taskId: string; scope: TaskScope }[] {
  switch (plan.kind) {
    case 'none':
      return [];
    case 'device':
      return [{ taskId: 'device', scope: { kind: 'lookup', key: plan.key } }];
    case 'all':
      return Array.from({ length: shardCount }, (_, shard) => ({ taskId: `s${shard}`, scope: { kind: 'shard', shard, index: { kind: 'all' }, skip: [] } }));
    case 'indexes':
      return plan.indexes.flatMap((index, part) =>
        Array.from({ length: shardCount }, (_, shard) => ({
          taskId: `p${part}.s${shard}`,
          scope: { kind: 'shard' as const, shard, index, skip: plan.indexes.slice(0, part) },
        })),
      );
  }
}
