import type { AppConfig } from '../../config/schema.ts';
import type { MakerName } from '../../push/gateways/delivery.ts';
import { buildHmsMessage, hmsSendBody } from '../../push/gateways/makers/hms/hms-message.ts';
import { buildHonorMessage, honorSendBody } from '../../push/gateways/makers/honor/honor-message.ts';
import { makers } from '../../push/gateways/makers/maker-registry.ts';
import { buildMeizuMessage, meizuMessageJson } from '../../push/gateways/makers/meizu/meizu-message.ts';
import { buildOppoMessage, oppoMessages } from '../../push/gateways/makers/oppo/oppo-message.ts';
import { buildVivoMessage, vivoSendBody } from '../../push/gateways/makers/vivo/vivo-message.ts';
import { buildXiaomiMessage, xiaomiSendBody } from '../../push/gateways/makers/xiaomi/xiaomi-message.ts';
import { buildMakerContent, type MakerContent } from '../../push/payload/maker-content.ts';
import { defaultMakerProfile } from '../../push/audience/device-route.ts';
import type { PushRequest } from '../../push/requests/push-request.ts';

/** What one phone maker's devices would be sent for a push. */
export interface MakerPreview {
  gateway: MakerName;
  /** The maker's name as a person knows it. */
  label: string;
  /** The installation `vendor` values it serves. */
  vendors: string[];
  /** The profile the preview was built with; null when the app has none of this maker. */
  profile: string | null;
  /** The request body, exactly as the maker client sends it, a placeholder for each device's registration id; null when nothing would be sent. */
  body: string | null;
  /** One sentence: how the body travels, or why nothing is sent. */
  note: string;
}

/** Stands for each device's own registration id in the makers' previews. */
export const makerTokenPlaceholder = '<registration id of the device>';

/** The makers' names as a person knows them. */
export const makerLabels: Record<MakerName, string> = { hms: 'Huawei (HMS)', honor: 'Honor', xiaomi: 'Xiaomi (Mi Push)', oppo: 'OPPO', vivo: 'vivo', meizu: 'Meizu (Flyme)' };

/** How each maker's client sends the body built here. */
const travels: Record<MakerName, string> = {
  hms: 'POST messages:send as JSON, up to 1000 tokens a request.',
  honor: 'POST sendMessage as JSON, up to 1000 tokens a request.',
  xiaomi: 'POST /v3/message/regid as a form, up to 1000 regIds a request (mi-intl devices through the global service); notify_id is drawn at random for each push.',
  oppo: 'the messages field of a unicast_batch form, beside the auth token, up to 1000 a request.',
  vivo: 'POST /message/send as JSON for one device; for more, saved once with saveListPayload and sent to lists of up to 1000 by pushToList; requestId is made per send.',
  meizu: 'the messageJson field of a pushByPushId form, with the pushIds and the request signature, up to 100 a request.',
};

type Profiles = Readonly<Record<string, unknown>>;

/**
 * The exact request body each phone maker's client sends for `request`,
 * built by the makers' own payload builders (`buildHmsMessage`,
 * `hmsSendBody`, …) from the content the sender builds
 * (`buildMakerContent`), with the app's profile: the push's
 * `device_profile`, else `_default` (what an installation without a
 * `deviceProfile` gets), else the first the app names. A push to a vendor's
 * devices previews that maker alone.
 */
export function previewMakerPayloads(request: PushRequest, app: AppConfig, now: number): MakerPreview[] {
  const { target } = request;
  if (target.kind === 'devices' ? target.deviceType !== 'android' : !target.platforms.has('android')) return [];
  const vendor = target.kind === 'devices' ? target.vendor : undefined;
  const wanted = target.kind === 'devices' ? target.deviceProfile : undefined;
  const sendAt = request.pushTime ?? now;
  const ttl = request.expiresAt === null ? null : Math.max(0, Math.ceil((request.expiresAt - sendAt) / 1000));
  const previews: MakerPreview[] = [];
  for (const maker of makers) {
    const vendors = Object.keys(maker.vendors);
    if (vendor !== undefined && !vendors.includes(vendor)) continue;
    const base = { gateway: maker.gateway, label: makerLabels[maker.gateway], vendors };
    const profiles = (app.push[maker.gateway]?.profiles ?? {}) as Profiles;
    const names = Object.keys(profiles);
    const name = [wanted ?? defaultMakerProfile, ...names].find((candidate) => Object.hasOwn(profiles, candidate));
    if (name === undefined) {
      previews.push({ ...base, profile: null, body: null, note: `The app has no ${maker.gateway} profile (apps[].push.${maker.gateway}): its devices count NoVendorCredentials.` });
      continue;
    }
    const content = buildMakerContent({ data: request.data, androidChannel: request.androidChannel, expiresAt: request.expiresAt }, maker.gateway, maker.overrideFields);
    if (content.silent && !maker.silent) {
      previews.push({ ...base, profile: name, body: null, note: `${makerLabels[maker.gateway]} carries no silent message: its devices count SilentNotSupported.` });
      continue;
    }
    const chosen = name === (wanted ?? defaultMakerProfile) ? '' : ` (the app has no ${wanted ?? defaultMakerProfile} profile: shown with ${name}; devices without a profile of theirs count NoVendorCredentials)`;
    previews.push({ ...base, profile: name, body: makerBody(maker.gateway, content, app.push, name, ttl), note: `Sent as ${travels[maker.gateway]}${chosen}` });
  }
  return previews;
}

/** The body one maker's client sends, from its own builders given the config's profile `name` (it holds every setting they read); null when there is no such profile. */
function makerBody(gateway: MakerName, content: MakerContent, push: AppConfig['push'], name: string, ttl: number | null): string | null {
  const token = makerTokenPlaceholder;
  switch (gateway) {
    case 'hms': {
      const profile = push.hms?.profiles[name];
      return profile === undefined ? null : hmsSendBody(buildHmsMessage(content, profile), [token], ttl);
    }
    case 'honor': {
      const profile = push.honor?.profiles[name];
      return profile === undefined ? null : honorSendBody(buildHonorMessage(content, profile), [token], ttl);
    }
    case 'xiaomi': {
      const profile = push.xiaomi?.profiles[name];
      return profile === undefined ? null : xiaomiSendBody(buildXiaomiMessage(content, profile), [token], ttl);
    }
    case 'oppo': {
      const profile = push.oppo?.profiles[name];
      return profile === undefined ? null : oppoMessages(buildOppoMessage(content, profile), [token], ttl);
    }
    case 'vivo': {
      const profile = push.vivo?.profiles[name];
      return profile === undefined ? null : vivoSendBody(buildVivoMessage(content, profile), token, '<request id>', ttl);
    }
    case 'meizu': {
      const profile = push.meizu?.profiles[name];
      return profile === undefined ? null : meizuMessageJson(buildMeizuMessage(content, profile), ttl);
    }
  }
}
