/**
 * Arguments no tool should receive, whatever its schema says: keys that reach an object's
 * prototype in a careless consumer (`obj[key] = …`, merges, `Object.assign`), and nesting deeper
 * than any real tool takes (a recursive consumer would exhaust its stack). Refused in strict
 * and soft mode alike. Iterative, so any depth is walked safely.
 */
export const MAX_ARGUMENT_DEPTH = 64;

const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** Why `value` (parsed arguments, the top-level object at depth 1) is refused, or undefined. */
export function argumentShapeProblem(value: unknown): string | undefined {
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const node = values.pop();
    const depth = depths.pop() as number;
    if (typeof node !== "object" || node === null) continue;
    if (depth > MAX_ARGUMENT_DEPTH)
      return `arguments nest more than ${MAX_ARGUMENT_DEPTH} levels deep, the gateway's limit`;
    if (Array.isArray(node)) {
      for (const item of node) {
        values.push(item);
        depths.push(depth + 1);
      }
      continue;
    }
    for (const key of Object.keys(node)) {
      if (FORBIDDEN_KEYS.has(key)) return `arguments hold the key "${key}" (refused at any depth)`;
      values.push((node as Record<string, unknown>)[key]);
      depths.push(depth + 1);
    }
  }
  return undefined;
}
