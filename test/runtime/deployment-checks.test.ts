import { describe, expect, it } from 'vitest';
import { ConfigError, compileConfig } from '../../src/config/load-config.ts';
import { checkDeployment } from '../../src/runtime/deployment-checks.ts';

const app = { id: 'app1', key: 'app-key-123', masterKey: 'master-key-123' };
const cassandra = { kind: 'cassandra', contactPoints: ['127.0.0.1:9042'], localDataCenter: 'dc1' } as const;
const redis = { kind: 'redis', url: 'redis://127.0.0.1:6379' } as const;
const kafka = { kind: 'kafka', brokers: ['127.0.0.1:9092'] } as const;
const distributed = { store: cassandra, coordination: redis, bus: kafka };

/** Settings beside the app: the backends and role a node runs with. */
type Setup = Record<string, unknown>;

function check(raw: Setup, developmentKeys = false) {
  return () => checkDeployment(compileConfig({ apps: [app], ...raw }), { developmentKeys });
}

describe('checking a deployment before it starts', () => {
  it.each<[string, Setup, boolean]>([
    ['every role on the embedded backends', {}, false],
    ['every role on the embedded backends with development keys', {}, true],
    ['an api node on Cassandra, Redis and Kafka', { role: 'api', ...distributed }, false],
    ['a sender node on Cassandra, Redis and Kafka', { role: 'sender', ...distributed }, false],
    ['every role on Cassandra, Redis and Kafka', distributed, false],
  ])('accepts %s', (_name, raw, devKeys) => {
    expect(check(raw, devKeys)).not.toThrow();
  });

  it.each<[string, Setup, boolean, RegExp]>([
    ['an api node on the in-process bus', { role: 'api', store: cassandra, coordination: redis }, false, /HERALD_ROLE=api.*in-process bus cannot reach them/],
    ['a sender on the embedded store', { role: 'sender', coordination: redis, bus: kafka }, false, /embedded store \(SQLite\) belongs to this process/],
    ['in-memory coordination beside Cassandra', { store: cassandra, bus: kafka }, false, /in-memory coordination beside a shared store or bus.*HERALD_REDIS_URL/],
    ['in-memory coordination beside Kafka', { bus: kafka }, false, /in-memory coordination/],
    ['development keys on shared backends', distributed, true, /development keys of its own.*HERALD_APP_ID/],
    ['development keys on a split role', { role: 'api', ...distributed }, true, /development keys/],
  ])('refuses %s, saying why', (_name, raw, devKeys, reason) => {
    expect(check(raw, devKeys)).toThrow(ConfigError);
    expect(check(raw, devKeys)).toThrow(reason);
  });

  it('names every problem at once', () => {
    const refusal = (() => {
      try {
        check({ role: 'fanout' }, false)();
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    })();
    expect(refusal).toMatch(/^Refusing to start a configuration that breaks with more than one node:/);
    expect(refusal.split('\n  - ')).toHaveLength(3);
  });

  it('warns when no scheduler runs on the embedded backends', () => {
    expect(check({ role: 'api,fanout,sender' })()).toEqual([expect.stringMatching(/no scheduler runs/)]);
    expect(check({ role: 'api', ...distributed })()).toEqual([]);
  });
});
