import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { honorApps, hmsApps, meizuApps, oppoApps, vivoApps, xiaomiApps } from '../../support/gateways/gateway-fixtures.ts';
import { exportDir, exportedInstallation, removeExportDirs, runImport, writeJsonLines } from '../../import/export-fixture.ts';
import { dayMs, startPushHerald, uniqueName, type PushHerald } from '../support/push-herald.ts';

/*
 * Installations exported from the hosted service with every vendor its SDK
 * writes (and their registrationId and deviceProfile), imported as `herald
 * import` imports them, then reached by a push each at its own fake.
 */

let p: PushHerald;
beforeAll(async () => {
  p = await startPushHerald();
});
afterAll(async () => {
  await p?.close();
  removeExportDirs();
});

/** A regId as vivo issues them: 23 characters. */
function vivoRegId(seed: string): string {
  return createHash('sha256').update(seed).digest('hex').slice(0, 23);
}

describe('installations imported from a hosted-service export', () => {
  it('keeps each one\'s vendor, registrationId and deviceProfile, so a push reaches each at its maker through its profile', async () => {
    const channel = uniqueName('imported');
    // Saved a day before the import: active, as devices that opened the app lately are.
    const savedAt = new Date(p.clock.now() - dayMs).toISOString();
    let n = 0;
    const android = (vendor: string | undefined, registrationId: string, deviceProfile?: string) => {
      n += 1;
      const row = exportedInstallation(2 * n + 1, { installationId: `${channel}-${n}`, registrationId, channels: [channel], updatedAt: savedAt, ...(deviceProfile === undefined ? {} : { deviceProfile }) });
      if (vendor === undefined) delete row.vendor;
      else row.vendor = vendor;
      return row;
    };
    const rows = {
      hms: android('HMS', `hmstoken-${channel}`),
      hmsSecond: android('HMS', `hmstoken-${channel}-2`, 'second'),
      honor: android('honor', `honortoken-${channel}`, ''),
      mi: android('mi', `mi-${channel}`),
      miSecond: android('mi', `mi-${channel}-2`, 'second'),
      miIntl: android('mi-intl', `intl-${channel}`),
      mz: android('mz', `mzpushid-${channel}`, 'second'),
      oppo: android('oppo', `CN_${channel}`),
      vivo: android('vivo', vivoRegId(channel)),
      fcm: android('fcm', `fcm-${channel}`),
      noVendor: android(undefined, `fcm-${channel}-bare`),
      lc: android('lc', `lc-${channel}`),
      unknown: android('nokia', `nokia-${channel}`),
      noProfile: android('oppo', `CN_${channel}-nowhere`, 'nowhere'),
      ios: exportedInstallation(2 * (n + 1), { deviceToken: createHash('sha256').update(channel).digest('hex'), channels: [channel], updatedAt: savedAt }),
    };
    const dir = exportDir();
    const file = writeJsonLines(join(dir, '_Installation.0.jsonl'), '_Installation', Object.values(rows));

    const summary = await runImport(p.h.herald.runtime.store, dir, p.h.app.id, [file]);
    expect(summary.tally).toEqual({ _Installation: { read: 15, imported: 15, present: 0, rejected: 0 } });
    const stored = await p.h.herald.runtime.store.installations.get(p.h.app.id, rows.mz.objectId as string);
    expect(stored).toMatchObject({ vendor: 'mz', registrationId: `mzpushid-${channel}`, deviceProfile: 'second' });

    const res = await p.send({ channels: [channel], data: { alert: 'Welcome back', title: 'Herald', ref: 1 } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const record = await p.settled(res.body.objectId);
    expect(record).toMatchObject({ devices: 15, successes: 12, iosSuccesses: 1, androidSuccesses: 11, invalidTokens: 0, errors: 3 });
    expect(record.errorReasons).toEqual({ NoRegistrationId: 1, UnsupportedVendor: 1, NoVendorCredentials: 1 });

    const once = (deliveries: unknown[], what: string) => expect(deliveries, what).toHaveLength(1);
    once(p.fakes.apns.log.deliveriesTo(rows.ios.deviceToken as string), 'ios');
    once(p.fakes.fcm.deliveriesTo(`fcm-${channel}`), 'fcm');
    once(p.fakes.fcm.deliveriesTo(`fcm-${channel}-bare`), 'no vendor');
    // Each maker device through the profile its deviceProfile names, _default when empty or absent.
    const hmsApp = (token: string) => p.fakes.hms.log.deliveriesTo(token).map((delivery) => delivery.request.appId);
    expect(hmsApp(`hmstoken-${channel}`)).toEqual([hmsApps._default.appId]);
    expect(hmsApp(`hmstoken-${channel}-2`)).toEqual([hmsApps.second.appId]);
    expect(p.fakes.honor.log.deliveriesTo(`honortoken-${channel}`).map((delivery) => delivery.request.appId)).toEqual([honorApps._default.appId]);
    const miRoute = (regId: string) => p.fakes.xiaomi.log.deliveriesTo(regId).map((delivery) => [delivery.request.region, delivery.request.form.restricted_package_name]);
    expect(miRoute(`mi-${channel}`)).toEqual([['china', xiaomiApps._default.packageName]]);
    expect(miRoute(`mi-${channel}-2`)).toEqual([['china', xiaomiApps.second.packageName]]);
    expect(miRoute(`intl-${channel}`)).toEqual([['global', xiaomiApps._default.packageName]]);
    expect(p.fakes.meizu.log.deliveriesTo(`mzpushid-${channel}`).map((delivery) => delivery.request.appId)).toEqual([meizuApps.second.appId]);
    expect(p.fakes.oppo.log.deliveriesTo(`CN_${channel}`).map((delivery) => delivery.request.appKey)).toEqual([oppoApps._default.appKey]);
    expect(p.fakes.vivo.log.deliveriesTo(vivoRegId(channel)).map((delivery) => delivery.request.appId)).toEqual([vivoApps._default.appId]);
    expect(p.fakes.oppo.requestsWith(`CN_${channel}-nowhere`)).toEqual([]);
  });
});
