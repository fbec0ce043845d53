import type { Request } from 'express';
import type { AccountResult } from '../../accounts/account-deps.ts';
import { ErrorCode, fail, HeraldError } from '../../core/errors.ts';

/** What the query string of a save asks for beside its body, as the hosted service's SDKs send it. */
export interface SaveOptions {
  /** `new=true`, the SDKs' `fetchWhenSave`: answer the object as saved, not only `updatedAt`. */
  answerObject: boolean;
}

/**
 * Reads the query string of a save (`POST`/`PUT` of a user or installation).
 * A `where` condition (the SDKs' conditional save, `save(attrs, {query})`) is
 * refused before anything is written: Herald does not evaluate it, and
 * ignoring it would write unconditionally what the app meant to write only
 * while the condition held.
 */
export function readSaveOptions(req: Request): SaveOptions {
  if (req.query.where !== undefined) {
    fail(ErrorCode.internal, 'Conditional saves (a where condition in the query string) are not supported; nothing was written.');
  }
  return { answerObject: req.query.new === 'true' };
}

/**
 * The answer of a save that asked for the object (`new=true`): the object as
 * `read` finds it right after the write, under the save's own answer (its
 * `updatedAt`, a new `sessionToken`). The SDK replaces its local copy with
 * this, so it sees what other clients changed and what the operations
 * (`Increment`, `AddUnique`) made of the stored values. A caller allowed to
 * write but not to read the object gets the save's answer alone.
 */
export async function withSavedObject(result: AccountResult, read: () => Promise<AccountResult>): Promise<AccountResult> {
  let saved: AccountResult;
  try {
    saved = await read();
  } catch (error) {
    if (error instanceof HeraldError && error.status < 500) return result;
    throw error;
  }
  return { ...result, body: { ...saved.body, ...result.body } };
}
