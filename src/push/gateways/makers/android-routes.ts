import type { Maker } from './maker.ts';
import { makers } from './maker-registry.ts';

/** Where an Android installation's push goes, by its `vendor`. */
export type AndroidRoute =
  | { readonly kind: 'fcm' }
  | { readonly kind: 'maker'; readonly maker: Maker; readonly variant: string }
  /** No gateway can reach it: `NoRegistrationId` (the hosted service's own channel, `lc`, or an empty vendor), `UnsupportedVendor` (a vendor no registered maker serves). */
  | { readonly kind: 'not-sent'; readonly reason: 'NoRegistrationId' | 'UnsupportedVendor' };

const toFcm: AndroidRoute = Object.freeze({ kind: 'fcm' });
const noAddress: AndroidRoute = Object.freeze({ kind: 'not-sent', reason: 'NoRegistrationId' });
const unsupported: AndroidRoute = Object.freeze({ kind: 'not-sent', reason: 'UnsupportedVendor' });

/**
 * Routes by the exact stored `vendor` (the hosted service's SDKs write `HMS`,
 * `mi`, `mi-intl`, `mz`, `oppo`, `vivo`, `honor`, `fcm`, `lc`), with the
 * aliases each maker registers: `fcm` or none goes through FCM as before;
 * `lc` and `''` have no address Herald can use.
 */
const routes = new Map<string, AndroidRoute>([
  ['fcm', toFcm],
  ['lc', noAddress],
  ['', noAddress],
  ...makers.flatMap((maker) => Object.entries(maker.vendors).map(([vendor, variant]): [string, AndroidRoute] => [vendor, Object.freeze({ kind: 'maker', maker, variant })])),
]);

/** The route of an installation's (or a `/push/devices` request's) `vendor`. */
export function androidRoute(vendor: unknown): AndroidRoute {
  if (vendor === undefined || vendor === null) return toFcm;
  if (typeof vendor !== 'string') return unsupported;
  return routes.get(vendor) ?? unsupported;
}

/** Every vendor value some gateway serves: `fcm` and the registered makers' (for `/push/devices`). */
export function knownVendors(): readonly string[] {
  return [...routes.entries()].filter(([, route]) => route.kind !== 'not-sent').map(([vendor]) => vendor);
}
