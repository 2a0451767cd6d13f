/** Ids are a policy, injected: random in production, counters in tests. */
export type IdPrefix = "call" | "fc" | "msg" | "resp" | "chatcmpl" | "rs" | "cmp" | "conv" | "item";

export interface IdGenerator {
  next(prefix: IdPrefix): string;
}

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** 24 random base62 chars from Web Crypto (global in Node ≥ 19, browsers, workers). */
export const createRandomIdGenerator = (length = 24): IdGenerator => ({
  next(prefix) {
    const bytes = crypto.getRandomValues(new Uint8Array(length));
    let out = "";
    for (const b of bytes) out += ALPHABET[b % 62];
    return `${prefix}_${out}`;
  },
});

/** Deterministic ids (`call_1`, `fc_2`, …) for tests and golden transcripts. */
export const createCountingIdGenerator = (): IdGenerator => {
  const counters = new Map<IdPrefix, number>();
  return {
    next(prefix) {
      const n = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, n);
      return `${prefix}_${n}`;
    },
  };
};
