import { describe, expect, it } from 'vitest';
import { checkTopicSpecs, compileSubscribeOptions } from '../../src/bus/subscribe-options.ts';
import type { SubscribeOptions, TopicSpec } from '../../src/core/ports/bus.ts';

const handler = (): Promise<void> => Promise.resolve();
const valid: SubscribeOptions = { groupId: 'senders', topics: ['push.tasks'], handler };

describe('compileSubscribeOptions', () => {
  it('fills in the defaults and drops repeated topics', () => {
    expect(compileSubscribeOptions({ ...valid, topics: ['push.tasks', 'push.tasks'] })).toEqual({
      groupId: 'senders',
      topics: ['push.tasks'],
      handler,
      concurrency: 4,
      retry: { initialDelayMs: 100, maxDelayMs: 30_000 },
    });
  });

  it.each<[string, Partial<SubscribeOptions>, string]>([
    ['an empty group id', { groupId: '' }, 'groupId'],
    ['no topics', { topics: [] }, 'topics'],
    ['a concurrency of zero', { concurrency: 0 }, 'concurrency'],
    ['a fractional concurrency', { concurrency: 1.5 }, 'concurrency'],
    ['a negative initial delay', { retry: { initialDelayMs: -1 } }, 'retry'],
    ['a cap below the initial delay', { retry: { initialDelayMs: 500, maxDelayMs: 100 } }, 'retry'],
  ])('rejects %s', (_, change, mentions) => {
    expect(() => compileSubscribeOptions({ ...valid, ...change })).toThrow(mentions);
  });
});

describe('checkTopicSpecs', () => {
  it.each<[string, TopicSpec[], string]>([
    ['an empty name', [{ name: '', partitions: 1 }], 'name'],
    ['zero partitions', [{ name: 'push.tasks', partitions: 0 }], 'partitions'],
    ['fractional partitions', [{ name: 'push.tasks', partitions: 2.5 }], 'partitions'],
    ['a topic listed twice', [{ name: 'push.tasks', partitions: 2 }, { name: 'push.tasks', partitions: 2 }], 'twice'],
  ])('rejects %s', (_, specs, mentions) => {
    expect(() => checkTopicSpecs(specs)).toThrow(mentions);
  });
});
