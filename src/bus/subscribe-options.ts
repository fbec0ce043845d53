import type { MessageHandler, RetryBackoff, SubscribeOptions, TopicSpec } from '../core/ports/bus.ts';
import { defaultRetryBackoff } from './retry-backoff.ts';

/** `SubscribeOptions` checked, with every default filled in. */
export interface SubscribeSettings {
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly handler: MessageHandler;
  readonly concurrency: number;
  readonly retry: Readonly<RetryBackoff>;
}

export const defaultConcurrency = 4;

/** Validates and completes subscribe options once, the same way for every adapter. */
export function compileSubscribeOptions(options: SubscribeOptions): SubscribeSettings {
  if (options.groupId.length === 0) throw new TypeError('subscribe: groupId must not be empty');
  const topics = [...new Set(options.topics)];
  if (topics.length === 0) throw new TypeError('subscribe: topics must name at least one topic');
  const concurrency = options.concurrency ?? defaultConcurrency;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`subscribe: concurrency must be a positive integer, got ${concurrency}`);
  }
  const retry = { ...defaultRetryBackoff, ...options.retry };
  if (!(retry.initialDelayMs >= 0) || !(retry.maxDelayMs >= retry.initialDelayMs)) {
    throw new RangeError('subscribe: retry delays must satisfy 0 <= initialDelayMs <= maxDelayMs');
  }
  return Object.freeze({
    groupId: options.groupId,
    topics: Object.freeze(topics),
    handler: options.handler,
    concurrency,
    retry: Object.freeze(retry),
  });
}

/** Rejects topic specs no adapter could create. */
export function checkTopicSpecs(specs: readonly TopicSpec[]): void {
  const seen = new Set<string>();
  for (const spec of specs) {
    if (spec.name.length === 0) throw new TypeError('ensureTopics: a topic name must not be empty');
    if (!Number.isInteger(spec.partitions) || spec.partitions < 1) {
      throw new RangeError(`ensureTopics: ${spec.name} needs a positive whole number of partitions, got ${spec.partitions}`);
    }
    if (seen.has(spec.name)) throw new TypeError(`ensureTopics: ${spec.name} is listed twice`);
    seen.add(spec.name);
  }
}
