import { setOwn } from '../../query/field-path.ts';
import type { MakerName } from '../gateways/delivery.ts';
import { androidMessageKeys } from '../requests/android-data.ts';
import { makerLayers, platformData } from './platform-data.ts';

/**
 * One push as a phone maker's devices get it, built once per push and maker;
 * each maker maps it to its own message (the maker payload hook,
 * `MakerProtocol.send`). docs/push-requests.md, "Phone makers".
 */
export interface MakerContent {
  /** The push's `data` for this maker: the platform keys left out, `data.android` and `data.<maker>` laid over it, the maker fields taken out. */
  readonly data: Readonly<Record<string, unknown>>;
  /** `data.alert`; empty when absent (the request readers require it for Android). */
  readonly alert: string;
  readonly title: string | undefined;
  /** `data.silent: true`: a pass-through (data-only) message, no notification. */
  readonly silent: boolean;
  readonly action: string | undefined;
  /** The keys of `data` other than `alert`, `title`, `silent` and `action`. */
  readonly custom: Readonly<Record<string, unknown>>;
  /** Maker fields from `data.<maker>` (the maker's `overrideFields`): written into its request where it documents them, after Herald's mapping. */
  readonly fields: Readonly<Record<string, unknown>>;
  /** The Android notification channel (`_notificationChannel`, `channel`), null when none. */
  readonly channel: string | null;
  /** When the push expires (ms), null when it does not. */
  readonly expiresAt: number | null;
}

export interface MakerContentSource {
  data: Readonly<Record<string, unknown>>;
  androidChannel: string | null;
  expiresAt: number | null;
}

/** The content of `push` for `maker`'s devices; `overrideFields` are the keys of `data.<maker>` that go into the request. */
export function buildMakerContent(push: MakerContentSource, maker: MakerName, overrideFields: ReadonlySet<string>): MakerContent {
  const { data, fields } = platformData(push.data, makerLayers(maker), overrideFields);
  const custom: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) if (!androidMessageKeys.has(key)) setOwn(custom, key, value);
  return {
    data,
    alert: typeof data.alert === 'string' ? data.alert : '',
    title: typeof data.title === 'string' ? data.title : undefined,
    silent: data.silent === true,
    action: typeof data.action === 'string' ? data.action : undefined,
    custom,
    fields,
    channel: push.androidChannel,
    expiresAt: push.expiresAt,
  };
}
