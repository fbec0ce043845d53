import { withTokenCaseInWhere } from '../../devices/device-token-case.ts';
import { parseWhere } from '../../query/parse-query.ts';
import type { Condition } from '../../query/query.ts';
import type { MakerName } from '../gateways/delivery.ts';
import { buildApnsTemplate, type ApnsTemplate } from '../payload/apns-template.ts';
import { buildFcmTemplate, type FcmTemplate } from '../payload/fcm-template.ts';
import { buildMakerContent, type MakerContent } from '../payload/maker-content.ts';
import { fcmLayers, iosLayers, platformData } from '../payload/platform-data.ts';
import type { PushSpec } from '../push-spec.ts';

/** What every slice of one push shares, built once per process: the parsed `where` and each platform's payload. */
export interface PreparedPush {
  readonly where: Condition | null;
  apns(): ApnsTemplate;
  fcm(): FcmTemplate;
  /** The push as `maker`'s devices get it; `overrideFields` are the maker's request fields in `data.<maker>`. */
  maker(maker: MakerName, overrideFields: ReadonlySet<string>): MakerContent;
}

/** How many pushes' preparations a sender keeps; one push's slices come one after another. */
const capacity = 256;

/**
 * Prepared pushes by push id, least recently used dropped first. Payloads are
 * built on first use, so a push that reaches only Android never builds an
 * APNs body.
 */
export class PreparedPushes {
  readonly #entries = new Map<string, PreparedPush>();

  get(pushId: string, spec: PushSpec): PreparedPush {
    let prepared = this.#entries.get(pushId);
    if (prepared === undefined) {
      prepared = preparePush(spec);
      if (this.#entries.size >= capacity) this.#entries.delete(this.#entries.keys().next().value as string);
    } else {
      this.#entries.delete(pushId);
    }
    this.#entries.set(pushId, prepared);
    return prepared;
  }
}

/** What the slices of one push share: the parsed `where` and each platform's payload, each built when first asked for. */
export function preparePush(spec: PushSpec): PreparedPush {
  // iOS tokens are stored in lower case; a where naming one in upper case still finds its device.
  const where = spec.target.kind === 'query' ? withTokenCaseInWhere(parseWhere(spec.target.where ?? undefined)) : null;
  let apns: ApnsTemplate | undefined;
  let fcm: FcmTemplate | undefined;
  const makers = new Map<MakerName, MakerContent>();
  return {
    where,
    // Each platform gets data with its own content laid over (docs/push-requests.md, "Content per platform").
    apns: () => (apns ??= buildApnsTemplate({ data: platformData(spec.data, iosLayers).data, expiresAt: spec.expiresAt })),
    fcm: () => (fcm ??= buildFcmTemplate({ data: platformData(spec.data, fcmLayers).data, androidChannel: spec.androidChannel })),
    maker: (maker, overrideFields) => {
      let content = makers.get(maker);
      if (content === undefined) makers.set(maker, (content = buildMakerContent(spec, maker, overrideFields)));
      return content;
    },
  };
}
