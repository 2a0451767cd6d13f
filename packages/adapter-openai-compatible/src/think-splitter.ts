/** A run of model output, either visible text or reasoning. */
export interface ThinkSegment {
  readonly kind: "text" | "reasoning";
  readonly text: string;
}

const OPEN = "<think>";
const CLOSE = "</think>";

/**
 * Length of the longest suffix of `s` that is a proper prefix of `tag` (a tag split across chunks).
 * Both tags hold one `<`, their first character: only the last `<` of `s` can start such a suffix.
 */
const partialTagAt = (s: string, tag: string): number => {
  const at = s.lastIndexOf("<");
  if (at === -1 || s.length - at >= tag.length) return 0;
  return tag.startsWith(s.slice(at)) ? s.length - at : 0;
};

/**
 * Splits streamed model text into text and reasoning: everything between `<think>` and `</think>`
 * (Qwen3, DeepSeek-R1 and other reasoning models served without a reasoning parser) is reasoning.
 * The whitespace a model puts between `</think>` and its answer is dropped. Pure and incremental:
 * any split of the input into `push()` calls yields the same segments once merged, and a tag
 * split across chunks is held back until it is complete.
 */
export const createThinkSplitter = () => {
  let inThink = false;
  let pending = "";
  // After `</think>` the answer usually starts with blank lines; drop them until real text comes.
  let trimLeading = false;

  const emit = (out: ThinkSegment[], text: string) => {
    let t = text;
    if (!inThink && trimLeading) {
      t = t.replace(/^\s+/, "");
      if (t !== "") trimLeading = false;
    }
    if (t !== "") out.push({ kind: inThink ? "reasoning" : "text", text: t });
  };

  return {
    push(chunk: string): ThinkSegment[] {
      const out: ThinkSegment[] = [];
      let buf = pending === "" ? chunk : pending + chunk;
      pending = "";
      for (;;) {
        const tag = inThink ? CLOSE : OPEN;
        const at = buf.indexOf(tag);
        if (at === -1) {
          const held = partialTagAt(buf, tag);
          emit(out, held === 0 ? buf : buf.slice(0, buf.length - held));
          if (held > 0) pending = buf.slice(buf.length - held);
          return out;
        }
        emit(out, buf.slice(0, at));
        if (inThink) trimLeading = true;
        inThink = !inThink;
        buf = buf.slice(at + tag.length);
      }
    },
    /** The end of the stream: a held-back partial tag was just text after all. */
    flush(): ThinkSegment[] {
      const out: ThinkSegment[] = [];
      if (pending !== "") emit(out, pending);
      pending = "";
      return out;
    },
    /** True while inside an unclosed `<think>` block. */
    thinking: () => inThink,
  };
};

export type ThinkSplitter = ReturnType<typeof createThinkSplitter>;
