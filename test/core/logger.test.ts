import { describe, expect, it } from 'vitest';
import { duplicateJsonKeys } from '../support/duplicate-json-keys.ts';
import { memoryLogger } from '../support/memory-logger.ts';

describe('duplicateJsonKeys', () => {
  it('finds a key repeated in one object, at any depth, and nothing in objects that only share key names', () => {
    expect(duplicateJsonKeys('{"app":"a","msg":"m","app":"b"}')).toEqual(['app']);
    expect(duplicateJsonKeys('{"req":{"headers":{"host":"x","host":"y"}},"list":[{"id":1,"id":2}]}')).toEqual(['req.headers.host', 'list[0].id']);
    expect(duplicateJsonKeys('{"a":{"id":1},"b":{"id":1},"c":[{"id":1},{"id":2}],"d":"{\\"a\\":1,\\"a\\":2}","e":-1.5e3,"f":null}')).toEqual([]);
  });

  it('refuses text that is not JSON', () => {
    expect(() => duplicateJsonKeys('{"a":1')).toThrow(SyntaxError);
    expect(() => duplicateJsonKeys('{"a":1} x')).toThrow(SyntaxError);
  });
});

describe('createLogger', () => {
  it('writes a key once when a child binds a key its parent bound, with the child value', () => {
    const logs = memoryLogger('info');
    const app = logs.logger.child({ app: 'outer', role: 'api' });
    app.child({ app: 'inner', component: 'mail' }).child({ component: 'smtp' }).info('sent');
    const [raw] = logs.text().split('\n');
    expect(duplicateJsonKeys(raw ?? '')).toEqual([]);
    expect(logs.lines[0]).toMatchObject({ service: 'herald', app: 'inner', role: 'api', component: 'smtp', msg: 'sent' });
  });

  it('writes a key once when a call repeats a binding, with the value of the call', () => {
    const logs = memoryLogger('info');
    const group = logs.logger.child({ groupId: 'bound' });
    group.info({ groupId: 'called', partition: 3 }, 'assigned');
    group.info({ service: 'other' }, 'renamed');
    group.info({ partition: 4 }, 'plain');
    for (const raw of logs.text().split('\n')) expect(duplicateJsonKeys(raw)).toEqual([]);
    expect(logs.lines).toMatchObject([
      { groupId: 'called', partition: 3, msg: 'assigned' },
      { service: 'other', groupId: 'bound', msg: 'renamed' },
      { groupId: 'bound', partition: 4, msg: 'plain' },
    ]);
  });

  it("keeps the parent's level and redaction in a child that rebinds a key", () => {
    const logs = memoryLogger('trace');
    const quiet = logs.logger.child({ app: 'a' }, { level: 'warn' });
    const rebound = quiet.child({ app: 'b' });
    rebound.info('dropped');
    rebound.warn({ password: 'hunter2', app: 'c' }, 'kept');
    expect(logs.lines).toHaveLength(1);
    expect(logs.lines[0]).toMatchObject({ app: 'c', password: '[redacted]', msg: 'kept' });
    expect(logs.text()).not.toContain('hunter2');
    expect(duplicateJsonKeys(logs.text())).toEqual([]);
  });

  it('logs errors given alone or beside fields as before', () => {
    const logs = memoryLogger('info');
    const child = logs.logger.child({ app: 'a' });
    child.error(new Error('alone'));
    child.error({ err: new Error('beside'), app: 'b' }, 'failed');
    expect(logs.lines).toMatchObject([
      { app: 'a', err: { message: 'alone' } },
      { app: 'b', err: { message: 'beside' }, msg: 'failed' },
    ]);
    for (const raw of logs.text().split('\n')) expect(duplicateJsonKeys(raw)).toEqual([]);
  });
});
