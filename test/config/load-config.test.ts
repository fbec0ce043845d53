import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load-config.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'herald-config-'));
const single = { HERALD_APP_ID: 'shop', HERALD_APP_KEY: 'app-key-123', HERALD_MASTER_KEY: 'master-key-123' };

describe('loadConfig', () => {
  it('reads one app and its settings from environment variables', () => {
    const { config, devKeys } = loadConfig({
      env: { ...single, PORT: '8080', HERALD_DATA_DIR: dir(), HERALD_EMAIL_VERIFICATION: 'true', HERALD_SMTP_URL: 'smtps://me:p%40ss@mail.example.com' },
    });
    expect(devKeys).toBeNull();
    expect(config.port).toBe(8080);
    expect(config.publicUrl).toBe('http://localhost:8080');
    expect(config.apps).toHaveLength(1);
    expect(config.apps[0]).toMatchObject({ id: 'shop', key: 'app-key-123', masterKey: 'master-key-123', settings: { emailVerification: true, clientPushAllowed: false } });
    expect(config.apps[0]?.mail.smtp).toEqual({ host: 'mail.example.com', port: 465, secure: true, user: 'me', pass: 'p@ss', rejectUnauthorized: true });
    expect(config.apps[0]?.settings.classPermissions._User).toEqual({ find: false, delete: true });
    expect(Object.isFrozen(config.apps[0]?.settings)).toBe(true);
  });

  it('reads several apps from a YAML file, each with its own keys and settings', () => {
    const file = join(dir(), 'herald.yaml');
    writeFileSync(
      file,
      [
        'port: 4000',
        'apps:',
        '  - id: first',
        '    key: first-key-1',
        '    masterKey: first-master-1',
        '    settings: { forceReloginAfterPasswordChange: true }',
        '  - id: second',
        '    key: second-key-1',
        '    masterKey: second-master-1',
        '    settings:',
        '      classPermissions: { _User: { find: true } }',
      ].join('\n'),
    );
    const { config } = loadConfig({ env: { HERALD_CONFIG: file } });
    expect(config.port).toBe(4000);
    expect(config.apps.map((app) => app.id)).toEqual(['first', 'second']);
    expect(config.apps[0]?.settings.forceReloginAfterPasswordChange).toBe(true);
    expect(config.apps[1]?.settings.classPermissions._User).toEqual({ find: true, delete: true });
  });

  it('reads a JSON file too, with environment variables overriding its top-level settings', () => {
    const file = join(dir(), 'herald.json');
    writeFileSync(file, JSON.stringify({ port: 4100, logLevel: 'warn', apps: [{ id: 'json-app', key: 'json-key-1', masterKey: 'json-master-1' }] }));
    const { config } = loadConfig({ env: { HERALD_CONFIG: file, PORT: '4200' } });
    expect(config.port).toBe(4200);
    expect(config.logLevel).toBe('warn');
    expect(config.apps.map((app) => app.id)).toEqual(['json-app']);
    writeFileSync(file, '{"port": ');
    expect(() => loadConfig({ env: { HERALD_CONFIG: file } })).toThrow(/HERALD_CONFIG: .* is not valid JSON/);
  });

  it('refuses single-app variables beside a file that declares apps', () => {
    const file = join(dir(), 'herald.json');
    writeFileSync(file, JSON.stringify({ apps: [{ id: 'json-app', key: 'json-key-1', masterKey: 'json-master-1' }] }));
    expect(() => loadConfig({ env: { HERALD_CONFIG: file, HERALD_EMAIL_VERIFICATION: 'true' } })).toThrow(/HERALD_EMAIL_VERIFICATION/);
  });

  it.each([
    ['a port that is not a number', { ...single, PORT: 'eighty' }, /PORT/],
    ['a port out of range', { ...single, PORT: '70000' }, /PORT/],
    ['a short master key', { ...single, HERALD_MASTER_KEY: 'short' }, /HERALD_MASTER_KEY/],
    ['an app id without its keys', { HERALD_APP_ID: 'shop' }, /HERALD_APP_KEY, HERALD_MASTER_KEY/],
    ['a boolean that is not one', { ...single, HERALD_EMAIL_VERIFICATION: 'maybe' }, /HERALD_EMAIL_VERIFICATION/],
    ['equal app and master keys', { ...single, HERALD_MASTER_KEY: 'app-key-123' }, /HERALD_MASTER_KEY/],
    ['an unknown role', { ...single, HERALD_ROLE: 'painter' }, /HERALD_ROLE/],
    ['an SMTP URL of another scheme', { ...single, HERALD_SMTP_URL: 'http://mail' }, /HERALD_SMTP_URL/],
  ])('stops with a message naming the key for %s', (_name, env, pattern) => {
    expect(() => loadConfig({ env: { HERALD_DATA_DIR: dir(), ...env } })).toThrow(ConfigError);
    expect(() => loadConfig({ env: { HERALD_DATA_DIR: dir(), ...env } })).toThrow(pattern);
  });

  it.each([
    ['an unknown key', 'apps:\n  - id: a\n    key: aaaaaaaa1\n    masterKey: bbbbbbbb1\n    colour: red\n', /apps\.0/],
    ['a duplicate app id', 'apps:\n  - {id: a, key: aaaaaaaa1, masterKey: bbbbbbbb1}\n  - {id: a, key: cccccccc1, masterKey: dddddddd1}\n', /apps\.1\.id/],
    ['a wrong setting type', 'apps:\n  - {id: a, key: aaaaaaaa1, masterKey: bbbbbbbb1, settings: {emailVerification: "yes"}}\n', /apps\.0\.settings\.emailVerification/],
    ['invalid YAML', 'apps: [\n', /HERALD_CONFIG/],
  ])('stops with a message naming the key for %s in the file', (_name, text, pattern) => {
    const file = join(dir(), 'herald.yaml');
    writeFileSync(file, text);
    expect(() => loadConfig({ env: { HERALD_CONFIG: file } })).toThrow(pattern);
  });

  it('creates development keys once when no app is configured and reuses them after', () => {
    const dataDir = dir();
    const first = loadConfig({ env: { HERALD_DATA_DIR: dataDir } });
    expect(first.devKeys?.created).toBe(true);
    const stored = JSON.parse(readFileSync(join(dataDir, 'dev-app.json'), 'utf8')) as { id: string; key: string; masterKey: string };
    expect(first.config.apps[0]).toMatchObject(stored);
    const second = loadConfig({ env: { HERALD_DATA_DIR: dataDir, HERALD_EMAIL_VERIFICATION: '1' } });
    expect(second.devKeys?.created).toBe(false);
    expect(second.config.apps[0]).toMatchObject({ ...stored, settings: { emailVerification: true } });
  });
});
