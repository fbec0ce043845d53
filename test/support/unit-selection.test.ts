import { readdirSync, readFileSync } from 'node:fs';
import { join, matchesGlob } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deployTests, serviceTests, wholeHeraldTests } from '../../vitest.unit.config.ts';

const root = join(import.meta.dirname, '../..');
const testFiles = readdirSync(join(root, 'test'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `test/${file}`);
const leftOut = [...serviceTests, ...wholeHeraldTests, ...deployTests];
const selected = testFiles.filter((file) => !leftOut.some((pattern) => matchesGlob(file, pattern)));

/** An import of what reaches the local Cassandra, Kafka or Redis, or starts a redis-server of the test's own. */
const serviceImport = /import\s[^;]*?(\b(redisCoordination|sharedCassandraStore|privateKafkaBus|deleteKafkaTopics)\b[^;]*from|from\s+'[^']*\/(service-endpoints|redis-process|cassandra-test-keyspace)\.ts')/;

describe('the files npm run test:unit selects', () => {
  it('leave out every file that reaches for a service', () => {
    const reaching = selected.filter((file) => serviceImport.test(readFileSync(join(root, file), 'utf8')));
    expect(reaching, 'add these to serviceTests in vitest.unit.config.ts').toEqual([]);
  });

  it('are chosen by patterns that each still name a file', () => {
    const stale = [...serviceTests, ...deployTests].filter((pattern) => !testFiles.some((file) => matchesGlob(file, pattern)));
    expect(stale).toEqual([]);
  });

  it('are the tests of the parts, most of the files that need no service', () => {
    expect(selected).toContain('test/image/dockerfile.test.ts');
    expect(selected).toContain('test/query/match.test.ts');
    expect(selected).not.toContain('test/api/login.test.ts');
    expect(selected.length).toBeGreaterThan(40);
  });
});
