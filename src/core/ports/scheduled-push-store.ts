/** A push waiting for its `push_time`. */
export interface ScheduledPush {
  /** The outermost `id` of SPEC.md, used to cancel; unique per app. */
  id: number;
  appId: string;
  /** objectId of the push record to send when due. */
  pushId: string;
  /** Unix ms when the push is to be sent (`expire_time` on the wire). */
  dueAt: number;
  createdAt: string;
  /** The `push_msg` fields the API answers. */
  message: Record<string, unknown>;
}

/**
 * Scheduled pushes, kept by due time so that the scheduler reads only what
 * is due, and per app for listing and cancelling. The scheduler sends an
 * entry only after winning its `remove`, so an entry is sent at most once
 * however many schedulers look at it.
 */
export interface ScheduledPushStore {
  /** Throws DuplicateValueError('id') when the app has an entry with this id. */
  add(entry: ScheduledPush): Promise<void>;
  /** The app's waiting entries, soonest first; at most `scheduledListCap` (1000) of them. */
  listForApp(appId: string): Promise<ScheduledPush[]>;
  get(appId: string, id: number): Promise<ScheduledPush | null>;
  /** Removes the entry and answers it; null when it was not there. Of concurrent callers exactly one gets it. */
  remove(appId: string, id: number): Promise<ScheduledPush | null>;
  /**
   * Entries due at or before `now` (Unix ms), across apps, oldest first, at
   * most `limit`; reads only the due-time ranges that can hold them. Entries
   * stay until removed.
   */
  due(now: number, limit: number): Promise<ScheduledPush[]>;
}

/** The most entries `listForApp` answers. */
export const scheduledListCap = 1000;
