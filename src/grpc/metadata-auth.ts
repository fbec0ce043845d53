import type { Metadata } from '@grpc/grpc-js';
import type { Caller } from '../accounts/account-deps.ts';
import type { AppRegistry } from '../accounts/app-registry.ts';
import { Header, resolveCaller } from '../api/resolve-caller.ts';
import { ErrorCode, HeraldError } from '../core/errors.ts';

/** The first value of a text metadata entry; undefined when absent. */
export function metadataText(metadata: Metadata, key: string): string | undefined {
  const value = metadata.get(key)[0];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The caller of a gRPC call, from the metadata named like the REST headers
 * (`x-svc-id`, and `x-svc-key: <master key>,master`), checked by the same
 * `resolveCaller`: an unknown app or a wrong key is 401 (UNAUTHENTICATED).
 * The gRPC API is for trusted backends, so a right app key without master
 * authority is 403 (PERMISSION_DENIED).
 */
export function masterCaller(apps: AppRegistry, metadata: Metadata): Caller {
  const caller = resolveCaller(apps, { appId: metadataText(metadata, Header.appId), key: metadataText(metadata, Header.appKey), session: undefined });
  if (!caller.master) throw new HeraldError(ErrorCode.forbidden, 'The gRPC API needs the master key: x-svc-key: <master key>,master.');
  return caller;
}
