import { resolve } from 'node:path';
import { loadSync, type Options, type PackageDefinition } from '@grpc/proto-loader';

/** The folder of Herald's `.proto` files (`herald/v1/…`, and the `google/rpc/status.proto` it writes errors with). */
export const protoRoot = resolve(import.meta.dirname, '../../proto');

/** Herald's services, relative to `protoRoot`. */
export const heraldProtoFiles = ['herald/v1/push_service.proto'];

/**
 * How Herald reads its protos, and how a node client should too: field names
 * as written in the proto (`req_id`, as the REST bodies have them), int64 as
 * JS numbers (counters and scheduled ids stay below 2^53), and no defaults
 * filled in, so an unset field is absent, like a member a REST body leaves
 * out.
 */
export const protoLoaderOptions: Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: false,
  oneofs: true,
  includeDirs: [protoRoot],
};

/** Loads Herald's services (`herald.v1.PushService`) for a server or a client. */
export function loadHeraldProtos(): PackageDefinition {
  return loadSync(heraldProtoFiles, protoLoaderOptions);
}
