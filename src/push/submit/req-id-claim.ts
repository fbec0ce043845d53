import { appKey, type Coordination } from '../../core/ports/coordination.ts';

/** SPEC.md: requests with the same `req_id` within 5 minutes are duplicates and are sent once. */
export const reqIdWindowMs = 5 * 60 * 1000;

export interface PushAnswer {
  objectId: string;
  createdAt: string;
}

export type ReqIdClaim = { won: true; release(): Promise<void> } | { won: false; first: PushAnswer };

/**
 * Claims a `req_id` for a new push across every API node (one `setIfAbsent`
 * in the coordination port). The winner records the answer it is about to
 * give; a repeat within the window gets that answer. A winner whose push then
 * fails releases the claim, so the request can be retried.
 */
export async function claimReqId(coord: Coordination, appId: string, reqId: string, answer: PushAnswer): Promise<ReqIdClaim> {
  const key = appKey(appId, 'push-req-id', reqId);
  if (await coord.setIfAbsent(key, JSON.stringify(answer), reqIdWindowMs)) return { won: true, release: () => coord.delete(key) };
  const stored = await coord.get(key);
  // The claim expired between the two calls: claim again.
  if (stored === null) return claimReqId(coord, appId, reqId, answer);
  return { won: false, first: JSON.parse(stored) as PushAnswer };
}
