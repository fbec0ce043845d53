import type { Platform, PushRequest } from './requests/push-request.ts';

/**
 * What a sender needs to deliver a push, as JSON: stored on the push record
 * (`_spec`) when the API accepts it, and carried by every task on the bus so
 * that a sender reads nothing but installations. `where` is the JSON form
 * (channels merged in); senders parse it again with the one query parser.
 */
export interface PushSpec {
  data: Record<string, unknown>;
  target:
    | { kind: 'query'; where: Record<string, unknown> | null; platforms: Platform[] }
    | {
        kind: 'devices';
        deviceType: Platform;
        ids: string[];
        /** iOS: a named certificate; Android with `vendor`: the maker profile (absent: `_default`). */
        deviceProfile: string | null;
        /** Android: the ids are registrationIds of this vendor's devices; absent (and in specs from before) they are installationIds. */
        vendor?: string | null;
      };
  /** Unix ms; null: never expires. */
  expiresAt: number | null;
  environment: 'prod' | 'dev';
  topic: string | null;
  apnsTeamId: string | null;
  /** Deliveries per second shared by every sender; null: as fast as the gateways take them. */
  flowControl: number | null;
  androidChannel: string | null;
}

export function pushSpecOf(request: PushRequest): PushSpec {
  const { target } = request;
  return {
    data: request.data,
    target:
      target.kind === 'query'
        ? { kind: 'query', where: target.whereJson, platforms: [...target.platforms] }
        : { kind: 'devices', deviceType: target.deviceType, ids: target.ids, deviceProfile: target.deviceProfile ?? null, vendor: target.vendor ?? null },
    expiresAt: request.expiresAt,
    environment: request.environment,
    topic: request.topic,
    apnsTeamId: request.apnsTeamId,
    flowControl: request.flowControl,
    androidChannel: request.androidChannel,
  };
}
