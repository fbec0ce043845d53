/**
 * How deep JSON from outside may nest: a request body, a `where`, a gRPC
 * push's `data`, an imported row. Code that walks values recursively
 * (validation, the matcher, JSON.stringify) then stays far from the end of
 * the stack. JSON.parse itself does not recurse, so a deeper document
 * parses and is refused after.
 */
export const maxNestingDepth = 64;

/** The shape of a JSON value: how deep it nests (a scalar is 0, `{}` and `[]` are 1) and how many values it holds (itself included). */
export interface JsonShape {
  depth: number;
  values: number;
}

/**
 * Measures a JSON value without recursion, so that the measure itself
 * cannot overflow. It stops as soon as either bound is passed (by default
 * `maxNestingDepth` levels, any number of values): the figure answered is
 * then past its bound, not exact.
 */
export function measureJson(value: unknown, bounds: Partial<JsonShape> = {}): JsonShape {
  const maxDepth = bounds.depth ?? maxNestingDepth;
  const maxValues = bounds.values ?? Number.POSITIVE_INFINITY;
  const shape: JsonShape = { depth: 0, values: 1 };
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, level] = stack.pop() as [unknown, number];
    if (node === null || typeof node !== 'object') continue;
    shape.depth = Math.max(shape.depth, level + 1);
    if (shape.depth > maxDepth) return shape;
    for (const child of Object.values(node)) {
      shape.values += 1;
      if (shape.values > maxValues) return shape;
      stack.push([child, level + 1]);
    }
  }
  return shape;
}

/** Whether a JSON value nests deeper than `maxNestingDepth`. */
export function nestsTooDeep(value: unknown): boolean {
  return measureJson(value).depth > maxNestingDepth;
}
