/** What one `push()` lets through: text safe to emit, and whether a stop sequence was reached. */
export interface StopScan {
  /** Text before any stop sequence, minus a tail that may still become one. */
  readonly text: string;
  /** A stop sequence matched: `text` ends right before it, and nothing after it may be emitted. */
  readonly stopped: boolean;
  /** The sequence that matched (when `stopped`). */
  readonly sequence?: string | undefined;
}

export interface StopSequenceMatcher {
  push(delta: string): StopScan;
  /** The held tail at the end of the output: it never became a stop sequence, so it is text. */
  flush(): string;
}

const NOT_STOPPED: StopScan = { text: "", stopped: false };
const ROOT = 0;

/**
 * The sequences as an Aho–Corasick automaton over UTF-16 code units: a trie, each node's failure
 * link (its longest proper suffix that is also in the trie) and the longest sequence ending there.
 * Building it is linear in the sequences' total length; scanning is linear in the text, whatever
 * the number of sequences.
 */
const buildAutomaton = (sequences: ReadonlyArray<string>) => {
  // One map for every edge, keyed by node and code unit: no per-node object.
  const edges = new Map<number, number>();
  const depth = [0];
  const fail = [ROOT];
  const matchLength = [0];
  const key = (node: number, code: number) => node * 65536 + code;
  for (const s of sequences) {
    let node = ROOT;
    for (let i = 0; i < s.length; i++) {
      const k = key(node, s.charCodeAt(i));
      let next = edges.get(k);
      if (next === undefined) {
        next = depth.length;
        depth.push(i + 1);
        fail.push(ROOT);
        matchLength.push(0);
        edges.set(k, next);
      }
      node = next;
    }
    matchLength[node] = s.length;
  }
  const step = (node: number, code: number): number => {
    for (let at = node; ; at = fail[at] as number) {
      const next = edges.get(key(at, code));
      if (next !== undefined) return next;
      if (at === ROOT) return ROOT;
    }
  };
  // Breadth first, so a node's failure link is final before its children need it. Edges are in
  // insertion order per parent only, so the queue walks nodes and looks their edges up.
  const children = new Map<number, Array<[number, number]>>();
  for (const [k, child] of edges) {
    const parent = Math.floor(k / 65536);
    const list = children.get(parent) ?? [];
    list.push([k - parent * 65536, child]);
    children.set(parent, list);
  }
  const queue: number[] = [ROOT];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head] as number;
    for (const [code, child] of children.get(node) ?? []) {
      fail[child] = node === ROOT ? ROOT : step(fail[node] as number, code);
      // The longest sequence ending here: this node's own, else its failure link's.
      if (matchLength[child] === 0) matchLength[child] = matchLength[fail[child] as number] as number;
      queue.push(child);
    }
  }
  return { step, depth, matchLength };
};

/**
 * Finds the client's stop sequences in streamed text, across delta boundaries, as a push machine:
 * the automaton's state carries over between deltas, so each character is looked at once. The
 * output stops at the first place where a sequence is complete (as a model that stops there
 * would); if several end there, before the longest. A tail that is the start of some sequence is
 * held until the next delta decides it, so a partial match is never emitted and then taken back.
 * Empty sequences are ignored.
 */
export const createStopSequenceMatcher = (sequences: ReadonlyArray<string>): StopSequenceMatcher => {
  const stops = [...new Set(sequences.filter((s) => s.length > 0))];
  const automaton = stops.length === 0 ? undefined : buildAutomaton(stops);
  let state = ROOT;
  let held = "";
  let done = false;

  return {
    push(delta) {
      if (done) return NOT_STOPPED;
      if (automaton === undefined) return delta === "" ? NOT_STOPPED : { text: delta, stopped: false };
      for (let i = 0; i < delta.length; i++) {
        state = automaton.step(state, delta.charCodeAt(i));
        const length = automaton.matchLength[state] as number;
        if (length > 0) {
          done = true;
          const seen = held + delta.slice(0, i + 1);
          held = "";
          return {
            text: seen.slice(0, seen.length - length),
            stopped: true,
            sequence: seen.slice(seen.length - length),
          };
        }
      }
      // The state's depth is the longest tail that may still become a sequence: hold exactly that.
      const text = held + delta;
      const keep = automaton.depth[state] as number;
      held = text.slice(text.length - keep);
      return { text: text.slice(0, text.length - keep), stopped: false };
    },
    flush() {
      const rest = done ? "" : held;
      held = "";
      return rest;
    },
  };
};
