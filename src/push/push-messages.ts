import type { DeviceKey, InstallationIndex } from '../core/ports/installation-store.ts';
import type { IndexRead } from '../devices/installation-scan.ts';
import type { PushSpec } from './push-spec.ts';

/** On `push.requests`, keyed by the push's objectId: a push to fan out now. */
export interface PushRequestMessage {
  appId: string;
  pushId: string;
}

/** The part of the audience one task covers. */
export type TaskScope =
  /** One shard of one index; installations also in one of `skip` were covered by an earlier index of the same push. */
  | { kind: 'shard'; shard: number; index: InstallationIndex; skip: IndexRead[] }
  /** The one installation a query pins by its device token or installationId. */
  | { kind: 'lookup'; key: DeviceKey }
  /** A listed batch of device tokens (iOS) or installationIds (Android). */
  | { kind: 'devices'; ids: string[] };

/**
 * On `push.tasks`, keyed by `<pushId>/<taskId>` so that every slice of a task
 * lands on one partition, in order. A task is worked through one slice per
 * message: a slice that leaves part of its scope publishes the next slice.
 */
export interface PushTaskMessage {
  appId: string;
  pushId: string;
  /** Stable across redeliveries and continuations, e.g. `s12` or `c1.s12`. */
  taskId: string;
  /** 0 for the first slice of the task. */
  slice: number;
  /** Read installations after this objectId; null at the start of the scope. */
  cursor: string | null;
  scope: TaskScope;
  spec: PushSpec;
}

export function taskKey(task: Pick<PushTaskMessage, 'pushId' | 'taskId'>): string {
  return `${task.pushId}/${task.taskId}`;
}

/** The key of one slice's result row: stable, so a redelivered slice overwrites its own row. */
export function sliceKey(task: Pick<PushTaskMessage, 'taskId' | 'slice'>): string {
  return `${task.taskId}/${task.slice}`;
}

export function encodeMessage(message: PushRequestMessage | PushTaskMessage): string {
  return JSON.stringify(message);
}

/** Reads a message this code published; a message it cannot read answers null (logged and settled by the caller). */
export function decodeRequest(value: Buffer): PushRequestMessage | null {
  const parsed = parseObject(value);
  if (parsed === null || typeof parsed.appId !== 'string' || typeof parsed.pushId !== 'string') return null;
  return { appId: parsed.appId, pushId: parsed.pushId };
}

export function decodeTask(value: Buffer): PushTaskMessage | null {
  const parsed = parseObject(value);
  if (parsed === null) return null;
  const { appId, pushId, taskId, slice, cursor, scope, spec } = parsed;
  if (typeof appId !== 'string' || typeof pushId !== 'string' || typeof taskId !== 'string') return null;
  if (typeof slice !== 'number' || !(cursor === null || typeof cursor === 'string')) return null;
  if (!isObject(scope) || !isObject(spec) || !isObject(spec.target)) return null;
  // Produced by this code only: the shapes inside are trusted once the frame is right.
  return parsed as unknown as PushTaskMessage;
}

function parseObject(value: Buffer): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(value.toString('utf8'));
    return isObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
