import { type ChatChunk, decodeChatChunk } from "./chat-chunk.js";

const KEY = '"content":';
const QUOTE = 34;
const BACKSLASH = 92;
/** Below this a character must be escaped inside a JSON string; raw, JSON.parse refuses it. */
const FIRST_PLAIN = 32;
/** Shapes learned in a row with no chunk matching in between before a stream stops trying (chunks that all differ). */
const MAX_FRUITLESS_LEARNS = 3;

/** The text of a chunk whose only effect is one text delta, or undefined for any other chunk. */
const onlyContent = (chunk: ChatChunk): string | undefined => {
  if (chunk.error !== undefined || (chunk.usage ?? undefined) !== undefined) return undefined;
  const choices = chunk.choices;
  if (choices?.length !== 1) return undefined;
  const choice = choices[0];
  const delta = choice?.delta;
  if (!delta || choice.finish_reason || delta.reasoning_content || delta.reasoning || delta.tool_calls)
    return undefined;
  return typeof delta.content === "string" ? delta.content : undefined;
};

/**
 * Skips the JSON parse of the chunks that carry nothing but text. A stream's text chunks repeat
 * the same bytes (id, created, model, index…) around `choices[0].delta.content`; once one was
 * parsed, a later payload made of those same bytes around a plain string (no quote, backslash or
 * control character, so its JSON value is its raw text) has exactly that text as its only effect,
 * and the text is sliced out instead of parsed. Anything else, and any stream whose chunks vary
 * (a server that stamps each chunk), takes the full parse: the result is the same either way.
 * One per stream; it learns from the chunks the full parse read, and gives up on a stream whose
 * chunks never repeat a shape (one extra parse per try).
 */
export const createContentTemplate = () => {
  let prefix = "";
  let suffix = "";
  let fixed = Number.POSITIVE_INFINITY;
  let fruitless = 0;

  return {
    /** The text of `payload` when it is a text chunk of the learned shape, else undefined. */
    match(payload: string): string | undefined {
      if (payload.length < fixed) return undefined;
      const end = payload.length - suffix.length;
      // Sliced and compared with `===`, not `startsWith`/`endsWith`: with a needle of ~150
      // characters those took about a microsecond a call, a tenth of a streamed answer's CPU.
      if (payload.slice(end) !== suffix || payload.slice(0, prefix.length) !== prefix) return undefined;
      for (let i = prefix.length; i < end; i++) {
        const c = payload.charCodeAt(i);
        if (c === QUOTE || c === BACKSLASH || c < FIRST_PLAIN) return undefined;
      }
      fruitless = 0;
      return payload.slice(prefix.length, end);
    },
    /** Takes the shape of a fully parsed chunk, if it is a text chunk whose text is written plainly. */
    learn(payload: string, chunk: ChatChunk): void {
      if (fruitless >= MAX_FRUITLESS_LEARNS) return;
      const text = onlyContent(chunk);
      // An empty text is the opening chunk (it names the role), not the shape the text chunks share.
      if (text === undefined || text === "") return;
      fruitless++;
      const field = KEY + JSON.stringify(text);
      const at = payload.indexOf(field);
      if (at === -1 || payload.indexOf(field, at + 1) !== -1) return;
      const start = at + KEY.length + 1;
      const before = payload.slice(0, start);
      const after = payload.slice(start + field.length - KEY.length - 2);
      // The slot found must be the delta's text: the same bytes with another text there parse to it.
      const probe = text === "x" ? "y" : "x";
      const parsed = decodeChatChunk(before + probe + after);
      if (parsed === undefined || onlyContent(parsed) !== probe) return;
      prefix = before;
      suffix = after;
      fixed = before.length + after.length;
    },
  };
};

export type ContentTemplate = ReturnType<typeof createContentTemplate>;
