import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makerTokenPlaceholder, type MakerPreview } from '../../../src/console/compose/maker-previews.ts';
import { eventually } from '../../support/eventually.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { people, startConsoleHerald, type ConsoleHerald } from '../support/console-herald.ts';

let c: ConsoleHerald;
let operator: ConsoleClient;

beforeAll(async () => {
  c = await startConsoleHerald();
  operator = new ConsoleClient(c.consoleUrl, c.origin);
  expect((await operator.signIn(people.operator)).status).toBe(303);
});

afterAll(async () => {
  await c?.close();
});

const main = (path: string) => `/apps/${c.main.id}${path}`;
const json = { headers: { Accept: 'application/json' } };

/** The preview's body for one device: its registration id in place of the placeholder. */
function forDevice(preview: MakerPreview | undefined, token: string): string {
  expect(preview?.body, preview?.note).toEqual(expect.any(String));
  return (preview?.body as string).replaceAll(makerTokenPlaceholder, token);
}

function without(fields: Record<string, unknown>, ...names: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([name]) => !names.includes(name)));
}

describe("compose's preview of the phone makers' requests", () => {
  it('previews for each maker the very request its client then sends', async () => {
    const channel = `makers${Date.now()}`;
    const vendors = { hms: 'HMS', honor: 'honor', xiaomi: 'mi', oppo: 'oppo', vivo: 'vivo', meizu: 'mz' } as const;
    const tokens: Record<string, string> = {};
    for (const [gateway, vendor] of Object.entries(vendors)) {
      tokens[gateway] = `${gateway}-token-${channel}`;
      const saved = await c.h.request('POST', '/1.1/installations', { body: { deviceType: 'android', installationId: `${gateway}-${channel}`, registrationId: tokens[gateway], vendor, channels: [channel] } });
      expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    }
    const form = { target: 'channels', channels: channel, iosAlert: 'Half price today', androidTitle: 'Sale', androidAlert: 'Half price today', androidChannel: 'offers', data: '{"article":"42"}' };
    const answer = await operator.post(main('/compose'), { ...form, action: 'preview' }, json);
    expect(answer.status, answer.text).toBe(200);
    const previews = (JSON.parse(answer.text) as { makers: MakerPreview[] }).makers;
    expect(previews.map((preview) => preview.gateway).sort()).toEqual(Object.keys(vendors).sort());
    const of = (gateway: string) => previews.find((preview) => preview.gateway === gateway);
    expect(of('hms')?.profile).toBe('_default');

    const sent = await operator.post(main('/compose'), { ...form, action: 'send' });
    expect(sent.status).toBe(303);
    const { fakes } = c;
    const [hms, honor, xiaomi, oppo, vivo, meizu] = await eventually(
      'every maker sent to',
      () => [
        fakes.hms.requestsWith(tokens.hms as string),
        fakes.honor.requestsWith(tokens.honor as string),
        fakes.xiaomi.requestsWith(tokens.xiaomi as string),
        fakes.oppo.requestsWith(tokens.oppo as string),
        fakes.vivo.requestsWith(tokens.vivo as string),
        fakes.meizu.requestsWith(tokens.meizu as string),
      ],
      (requests) => requests.every((list) => list.length === 1),
    );
    // JSON bodies byte for byte.
    expect(hms?.[0]?.body.toString('utf8')).toBe(forDevice(of('hms'), tokens.hms as string));
    expect(honor?.[0]?.body.toString('utf8')).toBe(forDevice(of('honor'), tokens.honor as string));
    // Xiaomi's form: every field, but notify_id, drawn at random for each push.
    const xiaomiPreview = Object.fromEntries(new URLSearchParams(forDevice(of('xiaomi'), tokens.xiaomi as string)));
    expect(without(xiaomi?.[0]?.form ?? {}, 'notify_id', 'registration_id')).toEqual(without(xiaomiPreview, 'notify_id', 'registration_id'));
    expect(xiaomi?.[0]?.form.registration_id).toBe(tokens.xiaomi);
    expect(xiaomiPreview.registration_id).toBe(makerTokenPlaceholder);
    expect(xiaomiPreview).toMatchObject({ title: 'Sale', description: 'Half price today' });
    // OPPO: the messages field as sent.
    expect(oppo?.[0]?.form.get('messages')).toBe(forDevice(of('oppo'), tokens.oppo as string));
    // vivo, one device: /message/send, its requestId made per send.
    expect(without(vivo?.[0]?.body as Record<string, unknown>, 'requestId')).toEqual(without(JSON.parse(forDevice(of('vivo'), tokens.vivo as string)) as Record<string, unknown>, 'requestId'));
    // Meizu: the messageJson field as sent.
    expect(meizu?.[0]?.params.messageJson).toBe(forDevice(of('meizu'), tokens.meizu as string));
  });

  it('previews a silent push as nothing for the makers that carry none, and no maker for a push to iOS alone', async () => {
    const silent = await operator.post(main('/compose'), { action: 'preview', target: 'query', where: '{"deviceType":"android"}', androidSilent: 'on', androidAlert: 'sync', data: '{"sync":true}' }, json);
    expect(silent.status, silent.text).toBe(200);
    const previews = (JSON.parse(silent.text) as { makers: MakerPreview[] }).makers;
    for (const gateway of ['oppo', 'vivo', 'meizu']) {
      const preview = previews.find((entry) => entry.gateway === gateway);
      expect(preview?.body, gateway).toBeNull();
      expect(preview?.note).toContain('SilentNotSupported');
    }
    expect(previews.find((entry) => entry.gateway === 'hms')?.body).toContain('"data":"{\\"sync\\":true');
    const ios = await operator.post(main('/compose'), { action: 'preview', target: 'query', where: '{"deviceType":"ios"}', iosAlert: 'Only iOS' }, json);
    expect((JSON.parse(ios.text) as { makers: MakerPreview[] }).makers).toEqual([]);
  });

  it('shows each maker on the page without JavaScript, the body in a <pre>', async () => {
    const page = await operator.post(main('/compose'), { action: 'preview', target: 'channels', channels: 'plain', iosAlert: 'Hello', androidAlert: 'Hello makers' });
    expect(page.status).toBe(200);
    for (const gateway of ['hms', 'honor', 'xiaomi', 'oppo', 'vivo', 'meizu']) expect(page.text).toContain(`data-preview="maker-${gateway}"`);
    expect(page.text).toMatch(/data-preview="maker-hms">\{&quot;validate_only&quot;:false,&quot;message&quot;:\{&quot;data&quot;:/);
  });
});
