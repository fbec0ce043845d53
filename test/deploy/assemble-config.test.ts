import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AssembleError, assembleConfig } from '../../charts/herald/files/assemble-config.mts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Assembles `config` with a Secret holding `entries`; answers the config or throws the problems. */
function assemble(config: unknown, entries: Record<string, string>): Record<string, any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const dir = mkdtempSync(join(tmpdir(), 'herald-assemble-'));
  dirs.push(dir);
  const secretDir = join(dir, 'secret');
  writeFileSync(join(dir, 'source.json'), JSON.stringify(config));
  mkdirSync(secretDir);
  for (const [key, value] of Object.entries(entries)) writeFileSync(join(secretDir, key), `${value}\n`);
  return assembleConfig({ source: join(dir, 'source.json'), secretDir, secretName: 'herald', target: join(dir, 'out.json') });
}

describe('the chart\'s config assembly', () => {
  const keys = { 'app.shop.key': 'app-key-123', 'app.shop.masterKey': 'master-key-123' };

  it('points each Huawei profile\'s secret at its Secret entry hms.<id>.<profile>.secret unless a file is named', () => {
    const config = assemble(
      { apps: [{ id: 'shop', push: { hms: { profiles: { _default: { appId: '1' }, eu: { appId: '2', clientSecretFile: 'hms-eu' } } } } }] },
      { ...keys, 'hms.shop._default.secret': 's1', 'hms-eu': 's2' },
    );
    const profiles = config.apps[0].push.hms.profiles;
    expect(profiles._default.clientSecretFile).toMatch(/\/secret\/hms\.shop\._default\.secret$/);
    expect(profiles.eu.clientSecretFile).toMatch(/\/secret\/hms-eu$/);
  });

  it('points each OPPO profile\'s MasterSecret at its Secret entry oppo.<id>.<profile>.secret unless a file is named, and names a missing one', () => {
    const block = { profiles: { _default: { appKey: 'k1' }, cn: { appKey: 'k2', masterSecretFile: 'oppo-cn' } } };
    const config = assemble({ apps: [{ id: 'shop', push: { oppo: block } }] }, { ...keys, 'oppo.shop._default.secret': 's1', 'oppo-cn': 's2' });
    const profiles = config.apps[0].push.oppo.profiles;
    expect(profiles._default.masterSecretFile).toMatch(/\/secret\/oppo\.shop\._default\.secret$/);
    expect(profiles.cn.masterSecretFile).toMatch(/\/secret\/oppo-cn$/);
    expect(() => assemble({ apps: [{ id: 'shop', push: { oppo: block } }] }, { ...keys, 'oppo-cn': 's2' })).toThrow(
      'the Secret herald has no entry oppo.shop._default.secret (apps[0].push.oppo.profiles._default.masterSecretFile)',
    );
  });

  it('points each vivo profile\'s AppSecret at its Secret entry vivo.<id>.<profile>.secret unless a file is named', () => {
    const block = { profiles: { _default: { appId: '1', appKey: 'k1' }, test: { appId: '2', appKey: 'k2', appSecretFile: 'vivo-test' } } };
    const config = assemble({ apps: [{ id: 'shop', push: { vivo: block } }] }, { ...keys, 'vivo.shop._default.secret': 's1', 'vivo-test': 's2' });
    const profiles = config.apps[0].push.vivo.profiles;
    expect(profiles._default.appSecretFile).toMatch(/\/secret\/vivo\.shop\._default\.secret$/);
    expect(profiles.test.appSecretFile).toMatch(/\/secret\/vivo-test$/);
  });

  it('points each Honor profile\'s Client Secret at its Secret entry honor.<id>.<profile>.secret', () => {
    const config = assemble(
      { apps: [{ id: 'shop', push: { honor: { profiles: { _default: { appId: '1', clientId: 'c1' }, eu: { appId: '2', clientId: 'c2', clientSecretFile: 'honor-eu' } } } } }] },
      { ...keys, 'honor.shop._default.secret': 's1', 'honor-eu': 's2' },
    );
    const profiles = config.apps[0].push.honor.profiles;
    expect(profiles._default.clientSecretFile).toMatch(/\/secret\/honor\.shop\._default\.secret$/);
    expect(profiles.eu.clientSecretFile).toMatch(/\/secret\/honor-eu$/);
  });

  it('points each Xiaomi profile\'s AppSecret at its Secret entry xiaomi.<id>.<profile>.secret, and names a missing one', () => {
    const block = { profiles: { _default: { packageName: 'com.example.shop' }, lite: { packageName: 'com.example.lite', appSecretFile: 'xiaomi-lite' } } };
    const config = assemble({ apps: [{ id: 'shop', push: { xiaomi: block } }] }, { ...keys, 'xiaomi.shop._default.secret': 's1', 'xiaomi-lite': 's2' });
    const profiles = config.apps[0].push.xiaomi.profiles;
    expect(profiles._default.appSecretFile).toMatch(/\/secret\/xiaomi\.shop\._default\.secret$/);
    expect(profiles.lite.appSecretFile).toMatch(/\/secret\/xiaomi-lite$/);
    expect(() => assemble({ apps: [{ id: 'shop', push: { xiaomi: block } }] }, { ...keys, 'xiaomi-lite': 's2' })).toThrow(
      'the Secret herald has no entry xiaomi.shop._default.secret (apps[0].push.xiaomi.profiles._default.appSecretFile)',
    );
  });

  it('points each Meizu profile\'s App Secret at its Secret entry meizu.<id>.<profile>.secret unless a file is named', () => {
    const config = assemble(
      { apps: [{ id: 'shop', push: { meizu: { profiles: { _default: { appId: '1' }, eu: { appId: '2', appSecretFile: 'meizu-eu' } } } } }] },
      { ...keys, 'meizu.shop._default.secret': 's1', 'meizu-eu': 's2' },
    );
    const profiles = config.apps[0].push.meizu.profiles;
    expect(profiles._default.appSecretFile).toMatch(/\/secret\/meizu\.shop\._default\.secret$/);
    expect(profiles.eu.appSecretFile).toMatch(/\/secret\/meizu-eu$/);
  });

  it('names the missing entry of a profile\'s secret', () => {
    expect(() => assemble({ apps: [{ id: 'shop', push: { hms: { profiles: { eu: { appId: '2' } } } } }] }, keys)).toThrow(AssembleError);
    expect(() => assemble({ apps: [{ id: 'shop', push: { hms: { profiles: { eu: { appId: '2' } } } } }] }, keys)).toThrow(
      'the Secret herald has no entry hms.shop.eu.secret (apps[0].push.hms.profiles.eu.clientSecretFile)',
    );
  });
});
