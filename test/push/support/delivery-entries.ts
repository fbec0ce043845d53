import { expect } from 'vitest';
import type { PushHerald } from './push-herald.ts';

// Entries are untyped JSON on the wire.
export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Every entry of a delivery-log listing (`/1.1/notifications/<id>/deliveries`, `/1.1/installations/<id>/deliveries`), following its cursors `limit` at a time. */
export async function everyEntry(p: PushHerald, path: string, limit = 1000): Promise<{ entries: Json[]; pages: number }> {
  const entries: Json[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const page = await p.h.request('GET', `${path}${separator}limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`, { master: true });
    const body = page.body as Json;
    expect(page.status, JSON.stringify(body)).toBe(200);
    expect(body.results.length).toBeLessThanOrEqual(limit);
    entries.push(...body.results);
    cursor = body.nextCursor;
    pages += 1;
  } while (cursor !== null);
  return { entries, pages };
}
