/** Feeds one JSON text in pieces; returns what is kept of each piece. */
export type ValueElider = (piece: string) => string;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * Cuts the value of the first member named `key` out of one JSON text as it streams, replacing it
 * with `null`, so a long value (codex's `turn/completed` repeats the whole answer in its `items`) is
 * neither held nor parsed. Incremental and linear: a piece costs its length, never the text's. A
 * text without such a member passes through unchanged.
 */
export const createValueElider = (key: string): ValueElider => {
  const quotedKey = JSON.stringify(key);
  /** seek: a member named `key`; colon: its `:`; value: its first character; skip: inside it. */
  let state: "seek" | "colon" | "value" | "skip" | "done" = "seek";
  let inString = false;
  let escaped = false;
  /** The string being read outside the value, while it can still be the key (with its quotes). */
  let token = "";
  let depth = 0;
  /** Where a string being skipped may end or escape. */
  const stringStop = /["\\]/g;
  return (piece) => {
    if (state === "done") return piece;
    let out = "";
    let from = 0;
    /** The value starts at `i`: what came before is kept and `null` stands in for it. */
    const startValue = (i: number) => {
      out += `${piece.slice(from, i)}null`;
      state = "skip";
      depth = 0;
    };
    /** The value ended; the piece is kept from `i` on. */
    const endValue = (i: number) => {
      state = "done";
      from = i;
    };
    const scanning = () => state !== "done";
    for (let i = 0; i < piece.length && scanning(); i++) {
      if (inString && state === "skip" && !escaped) {
        // Inside the skipped value most characters are text: jump to the next quote or backslash.
        stringStop.lastIndex = i;
        const stop = stringStop.exec(piece);
        if (stop === null) break;
        i = stop.index;
      }
      const c = piece.charCodeAt(i);
      if (inString) {
        if (state !== "skip" && token.length <= quotedKey.length) token += piece[i];
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) {
          inString = false;
          if (state === "skip") {
            if (depth === 0) endValue(i + 1);
          } else state = token === quotedKey ? "colon" : "seek";
        }
      } else if (isSpace(c)) {
        // between tokens
      } else if (state === "colon") {
        state = c === COLON ? "value" : "seek";
        if (c === QUOTE) {
          inString = true;
          token = '"';
        }
      } else {
        if (state === "value") startValue(i);
        if (c === QUOTE) {
          inString = true;
          token = '"';
        } else if (state === "skip") {
          if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
          else if (c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
            // A scalar ends before its separator; a container with its own closing bracket.
            if (depth === 0) endValue(i);
            else if (c !== COMMA && --depth === 0) endValue(i + 1);
          }
        }
      }
    }
    return state === "skip" ? out : out + piece.slice(from);
  };
};
