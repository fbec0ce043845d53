import type { types } from 'cassandra-driver';
import type { CqlSession } from './cassandra-client.ts';

/**
 * The rows of one query, fetched `fetchSize` at a time through `session`
 * (so each page goes through the same error handling as any statement);
 * memory holds one page.
 */
export async function* pagedRows(session: CqlSession, query: string, params: unknown[], fetchSize: number): AsyncGenerator<types.Row> {
  let pageState: string | undefined;
  do {
    const result = await session.execute(query, params, { fetchSize, pageState });
    yield* result.rows;
    pageState = result.pageState ?? undefined;
  } while (pageState !== undefined);
}
