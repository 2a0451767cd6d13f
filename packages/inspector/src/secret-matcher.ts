/**
 * Every occurrence of any of a set of secrets in one pass over a text: an Aho–Corasick automaton,
 * built once at start as a dense table over the secrets' own characters (any other character sends
 * the scan back to the root), so a scan costs one table read per character whatever the number of
 * secrets. Ranges are UTF-16 offsets, overlapping or touching occurrences merged.
 */
export interface SecretMatcher {
  /** Merged `[start, end)` ranges of the secrets in `text`, in order. */
  ranges(text: string): Array<[number, number]>;
  /** The longest secret's length (how far one can reach across a cut). */
  readonly longest: number;
}

export const createSecretMatcher = (secrets: ReadonlyArray<string>): SecretMatcher => {
  const classOf = new Uint16Array(65_536);
  let alphabet = 1;
  for (const s of secrets)
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (classOf[c] === 0) classOf[c] = alphabet++;
    }
  // The trie, as child maps while it is built.
  const children: Array<Map<number, number>> = [new Map()];
  const out: number[] = [0];
  for (const s of secrets) {
    let state = 0;
    for (let i = 0; i < s.length; i++) {
      const a = classOf[s.charCodeAt(i)] as number;
      let next = children[state]?.get(a);
      if (next === undefined) {
        next = children.length;
        children.push(new Map());
        out.push(0);
        children[state]?.set(a, next);
      }
      state = next;
    }
    out[state] = Math.max(out[state] as number, s.length);
  }
  // Breadth first: each state's failure target is shallower, so its row and match length are final.
  const delta = new Int32Array(children.length * alphabet);
  const longestMatch = Int32Array.from(out);
  const fail = new Int32Array(children.length);
  const queue: number[] = [0];
  for (let q = 0; q < queue.length; q++) {
    const s = queue[q] as number;
    for (let a = 1; a < alphabet; a++) {
      const t = children[s]?.get(a);
      const viaFail = s === 0 ? 0 : (delta[(fail[s] as number) * alphabet + a] as number);
      if (t === undefined) {
        delta[s * alphabet + a] = viaFail;
        continue;
      }
      delta[s * alphabet + a] = t;
      fail[t] = viaFail;
      longestMatch[t] = Math.max(longestMatch[t] as number, longestMatch[viaFail] as number);
      queue.push(t);
    }
  }
  const longest = secrets.reduce((n, s) => Math.max(n, s.length), 0);

  return {
    longest,
    ranges(text) {
      const found: Array<[number, number]> = [];
      if (secrets.length === 0) return found;
      let state = 0;
      for (let i = 0; i < text.length; i++) {
        state = delta[state * alphabet + (classOf[text.charCodeAt(i)] as number)] as number;
        const length = longestMatch[state] as number;
        if (length === 0) continue;
        // The longest secret ending here covers every shorter one that does.
        let start = i + 1 - length;
        while (found.length > 0 && start <= (found.at(-1) as [number, number])[1])
          start = Math.min(start, (found.pop() as [number, number])[0]);
        found.push([start, i + 1]);
      }
      return found;
    },
  };
};
