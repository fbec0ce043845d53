import { ErrorCode, fail } from '../../core/errors.ts';
import { isJsonObject } from '../../query/json-value.ts';
import { parseWhere } from '../../query/parse-query.ts';
import { readChannels } from './channel-names.ts';
import { param, type Params } from './param-rules.ts';
import { platformsReached } from './platform-reach.ts';
import type { QueryTarget } from './push-request.ts';

/**
 * The target of `POST /1.1/push`: `where` (a JSON object, or a string holding
 * one) with `channels` merged in as `{channels: {$in: [...]}}`, parsed with
 * the query language installations are found with.
 */
export function readQueryTarget(params: Params): QueryTarget {
  // The hosted SDKs' `AV.Push.send({cql})`: ignored like other unknown parameters, it would leave the push to every installation.
  if (param(params, 'cql') !== undefined) {
    fail(ErrorCode.internal, 'cql is not supported: target the push with where (a JSON query over _Installation) or channels.');
  }
  const given = readWhereJson(param(params, 'where'));
  const channels = readChannels(param(params, 'channels'));
  const whereJson = channels === null ? given : mergeChannels(given, channels);
  const where = parseWhere(whereJson ?? undefined);
  return { kind: 'query', where, whereJson, platforms: platformsReached(where) };
}

function readWhereJson(value: unknown): Record<string, unknown> | null {
  if (value === undefined) return null;
  let decoded: unknown = value;
  if (typeof value === 'string') {
    try {
      decoded = JSON.parse(value) as unknown;
    } catch {
      fail(ErrorCode.invalidJson, 'where is not valid JSON');
    }
  }
  if (!isJsonObject(decoded)) fail(ErrorCode.invalidJson, 'where must be a JSON object');
  return decoded;
}

/**
 * Adds the channel condition beside the other fields of `where`, or ANDs the
 * two when `where` already has its own condition on `channels`.
 */
function mergeChannels(where: Record<string, unknown> | null, channels: string[]): Record<string, unknown> {
  const condition = { $in: channels };
  if (where === null) return { channels: condition };
  if (Object.hasOwn(where, 'channels')) return { $and: [where, { channels: condition }] };
  return { ...where, channels: condition };
}
