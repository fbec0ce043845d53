/**
 * A parsed, validated query over a class: the `where/order/skip/limit/keys/count`
 * parameters of SPEC-NOTES.md. Built by `parseQuery`, run by `runQuery` or by an
 * adapter that can do the same work natively.
 */
export type Condition =
  | { kind: 'and'; conditions: Condition[] }
  | { kind: 'or'; conditions: Condition[] }
  | { kind: 'field'; path: string[]; predicates: FieldPredicate[] };

export type FieldPredicate =
  | { op: 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte'; value: unknown }
  | { op: 'in' | 'nin' | 'all'; values: unknown[] }
  | { op: 'exists'; value: boolean }
  | { op: 'regex'; source: string; flags: string; matcher: RegexMatcher };

/**
 * A `$regex` compiled once when the query is parsed; `test` answers whether
 * the pattern occurs in a string, in time linear in the string's length.
 */
export interface RegexMatcher {
  test(text: string): boolean;
}

export interface OrderKey {
  path: string[];
  descending: boolean;
}

export interface Query {
  where: Condition | null;
  order: OrderKey[];
  skip: number;
  limit: number;
  /** Fields to return besides objectId, createdAt and updatedAt; null for all. */
  keys: string[] | null;
  count: boolean;
  /**
   * Principals (`*`, user ids) of the caller when object ACLs apply; only
   * objects one of them may read are matched. Null for master-key callers.
   */
  readableBy: string[] | null;
}

export const defaultLimit = 100;
export const maxLimit = 1000;
export const maxSkip = 100_000;

/** A query matching every object, as used internally. */
export function queryAll(overrides: Partial<Query> = {}): Query {
  return { where: null, order: [], skip: 0, limit: defaultLimit, keys: null, count: false, readableBy: null, ...overrides };
}
