import type { RegExpEngine, RegExpLike } from "ajv/dist/types/index.js";
import { RE2JS } from "re2js";

/** ajv keys the patterns it has seen by toString(): it must be distinct per pattern. */
type KeyedRegExp = RegExpLike & { toString(): string };

interface Entry {
  readonly regExp: KeyedRegExp;
  /** Why RE2 refused the pattern, if it did. */
  readonly unsupported?: string;
}

const MAX_PATTERNS = 1024;

/**
 * An ajv regular-expression engine that matches in linear time (RE2), so a client's `pattern`
 * or `patternProperties` can never make validation backtrack for minutes on the event loop.
 *
 * A pattern RE2 cannot compile (backreferences, lookaround) is reported through `onUnsupported`
 * and matches everything: the caller decides whether the schema is refused (strict tools) or the
 * constraint skipped with a warning (soft tools). Compiled patterns are kept, bounded, because
 * ajv asks again for every schema that uses them.
 */
export const createLinearRegExpEngine = (
  onUnsupported: (pattern: string, reason: string) => void,
): RegExpEngine => {
  const entries = new Map<string, Entry>();
  const compile = (pattern: string, key: string): Entry => {
    try {
      const re = RE2JS.compile(RE2JS.translateRegExp(pattern));
      return { regExp: { test: (s: string) => re.test(s), toString: () => key } };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return { regExp: { test: () => true, toString: () => `unsupported:${key}` }, unsupported: reason };
    }
  };
  const engine = (pattern: string, flags: string): RegExpLike => {
    const key = `/${pattern}/${flags}`;
    let entry = entries.get(key);
    if (entry === undefined) {
      entry = compile(pattern, key);
      entries.set(key, entry);
      if (entries.size > MAX_PATTERNS) entries.delete(entries.keys().next().value as string);
    }
    if (entry.unsupported !== undefined) onUnsupported(pattern, entry.unsupported);
    return entry.regExp;
  };
  // `code` is only read when ajv generates standalone code, which the gateway never does.
  return Object.assign(engine, { code: "linearRegExp" });
};
