import { isDigit, N_INT, N_MINUS, N_ZERO, nextNumberState, numberMayEnd } from "./json-number.js";
import type { TextBuffer } from "./text-buffer.js";

/**
 * Incremental JSON syntax checker: one character at a time, linear, string/escape aware.
 * Besides accept/reject it knows the last *commit point*: a text length at which the value
 * seen so far can be closed minimally (inside a value string, or right after a complete value or
 * a nested opener). Streaming stops at commit points, so an emitted prefix is never complete
 * JSON (the top-level `}` is never a commit point) yet can always be closed if the rest goes bad.
 * Raw control characters inside strings (models write real newlines) are escaped on the fly
 * and reported as `sanitized`.
 */
export interface JsonSyntaxValidator {
  /** Feeds one UTF-16 code unit; false when the value already ended before it (caller owns it). */
  feed(ch: string, code: number): boolean;
  /** Inside a string, not inside an escape: `feedStringRun` may be used. */
  inPlainString(): boolean;
  /**
   * Fast path for string content that leaves the state as it was: ordinary characters and
   * complete escapes, no `"` or control character (see `scanStringRun`), valid only while
   * `inPlainString()`. One append instead of one per character, same text and commit point
   * (`openSurrogates`: high surrogates ending the run, after which there is none).
   */
  feedStringRun(text: string, openSurrogates: number): void;
  status(): "pending" | "complete" | "failed";
  inString(): boolean;
  /** Text length of the last commit point (0 until the top-level object has content). */
  commitEnd(): number;
  /** The top-level value is an object (`{` was its first character). */
  isObject(): boolean;
  /** The top-level object closed with no members. */
  isEmptyObject(): boolean;
  /** Text length right after the top-level value (-1 while pending). */
  valueEnd(): number;
  sanitized(): boolean;
  /** Characters that close everything open, or undefined when no valid closing exists. */
  closers(): string | undefined;
}

export interface JsonSyntaxValidatorOptions {
  /** Where the (sanitised) text goes; omit to only check syntax. Leading whitespace is skipped. */
  readonly text?: TextBuffer | undefined;
  /** After the value: `reject` hands characters back, `absorb` keeps whitespace and fails on anything else. */
  readonly trailing: "reject" | "absorb";
}

const S_START = 0;
const S_VALUE = 1;
const S_OBJ_FIRST = 2;
const S_OBJ_KEY = 3;
const S_KEY = 4;
const S_COLON = 5;
const S_AFTER = 6;
const S_STR = 7;
const S_NUM = 8;
const S_LIT = 9;
const S_DONE = 10;
const S_FAIL = 11;

const OPEN_OBJECT = 123;
const OPEN_ARRAY = 91;

const isJsonWs = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;
const isHex = (c: number) => isDigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;

const CONTROL_ESCAPES: Readonly<Record<number, string>> = {
  8: "\\b",
  9: "\\t",
  10: "\\n",
  12: "\\f",
  13: "\\r",
};
const escapeControl = (c: number) => CONTROL_ESCAPES[c] ?? `\\u${c.toString(16).padStart(4, "0")}`;

export function createJsonSyntaxValidator(options: JsonSyntaxValidatorOptions): JsonSyntaxValidator {
  const out = options.text;
  const stack: number[] = [];
  let state = S_START;
  let arrayJustOpened = false;
  let escapeState = 0; // 0 none, 1 after backslash, 2..5 inside \uXXXX
  let num = N_INT;
  let literal = "";
  let literalPos = 0;
  let commit = 0;
  let isObject = false;
  let members = 0;
  let end = -1;
  let sanitized = false;

  const emit = (s: string) => out?.append(s);
  const markCommit = () => {
    if (isObject && out) commit = out.length;
  };
  const fail = (ch: string) => {
    state = S_FAIL;
    emit(ch);
    return true;
  };
  const valueDone = () => {
    if (stack.length === 0) {
      state = S_DONE;
      end = out ? out.length : 0;
    } else {
      state = S_AFTER;
      markCommit();
    }
  };
  const open = (ch: string, c: number) => {
    emit(ch);
    stack.push(c);
    if (c === OPEN_OBJECT) state = S_OBJ_FIRST;
    else {
      state = S_VALUE;
      arrayJustOpened = true;
    }
    if (stack.length >= 2) markCommit();
  };
  const close = (ch: string) => {
    emit(ch);
    stack.pop();
    valueDone();
  };
  const startValue = (ch: string, c: number): boolean => {
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) open(ch, c);
    else if (c === 34) {
      emit(ch);
      state = S_STR;
      markCommit();
    } else if (c === 45 || isDigit(c)) {
      emit(ch);
      state = S_NUM;
      num = c === 45 ? N_MINUS : c === 48 ? N_ZERO : N_INT;
    } else if (c === 116 || c === 102 || c === 110) {
      emit(ch);
      state = S_LIT;
      literal = c === 116 ? "true" : c === 102 ? "false" : "null";
      literalPos = 1;
    } else return fail(ch);
    return true;
  };
  const stringChar = (ch: string, c: number, isKey: boolean): boolean => {
    if (escapeState === 0) {
      if (c === 34) {
        emit(ch);
        if (isKey) state = S_COLON;
        else valueDone();
        return true;
      }
      if (c === 92) {
        emit(ch);
        escapeState = 1;
        return true;
      }
      if (c < 0x20) {
        emit(escapeControl(c));
        sanitized = true;
      } else emit(ch);
      if (!isKey && !isHighSurrogate(c)) markCommit();
      return true;
    }
    if (escapeState === 1) {
      if (c === 117) escapeState = 2;
      else if (
        c === 34 ||
        c === 92 ||
        c === 47 ||
        c === 98 ||
        c === 102 ||
        c === 110 ||
        c === 114 ||
        c === 116
      )
        escapeState = 0;
      else return fail(ch);
    } else if (isHex(c)) escapeState = escapeState === 5 ? 0 : escapeState + 1;
    else return fail(ch);
    emit(ch);
    if (escapeState === 0 && !isKey) markCommit();
    return true;
  };
  const numberChar = (ch: string, c: number): boolean | undefined => {
    const next = nextNumberState(num, c);
    if (next >= 0) {
      num = next;
      emit(ch);
      return true;
    }
    if (!numberMayEnd(num)) return fail(ch);
    valueDone();
    return undefined; // the delimiter still has to be processed in the new state
  };

  const feed = (ch: string, c: number): boolean => {
    switch (state) {
      case S_STR:
        return stringChar(ch, c, false);
      case S_KEY:
        return stringChar(ch, c, true);
      case S_NUM: {
        const r = numberChar(ch, c);
        return r === undefined ? feed(ch, c) : r;
      }
      case S_LIT:
        if (c !== literal.charCodeAt(literalPos)) return fail(ch);
        emit(ch);
        literalPos += 1;
        if (literalPos === literal.length) valueDone();
        return true;
      case S_START:
        if (isJsonWs(c)) return true;
        isObject = c === OPEN_OBJECT;
        return startValue(ch, c);
      case S_FAIL:
        emit(ch);
        return true;
      case S_DONE:
        if (options.trailing === "reject") return false;
        if (!isJsonWs(c)) return fail(ch);
        emit(ch);
        return true;
    }
    if (isJsonWs(c)) {
      emit(ch);
      return true;
    }
    switch (state) {
      case S_VALUE:
        if (c === 93 && arrayJustOpened) {
          close(ch);
          return true;
        }
        arrayJustOpened = false;
        return startValue(ch, c);
      case S_OBJ_FIRST:
      case S_OBJ_KEY:
        if (c === 34) {
          emit(ch);
          state = S_KEY;
          if (stack.length === 1) members += 1;
          return true;
        }
        if (c === 125 && state === S_OBJ_FIRST) {
          close(ch);
          return true;
        }
        return fail(ch);
      case S_COLON:
        if (c !== 58) return fail(ch);
        emit(ch);
        state = S_VALUE;
        arrayJustOpened = false;
        return true;
      default: {
        // S_AFTER
        const top = stack[stack.length - 1];
        if (c === 44) {
          emit(ch);
          state = top === OPEN_OBJECT ? S_OBJ_KEY : S_VALUE;
          arrayJustOpened = false;
          return true;
        }
        if ((c === 125 && top === OPEN_OBJECT) || (c === 93 && top === OPEN_ARRAY)) {
          close(ch);
          return true;
        }
        return fail(ch);
      }
    }
  };

  return {
    feed,
    inPlainString: () => (state === S_STR || state === S_KEY) && escapeState === 0,
    feedStringRun(text, openSurrogates) {
      emit(text);
      // Every character commits except a high surrogate (its pair is not complete yet).
      if (state === S_STR && isObject && out && openSurrogates < text.length)
        commit = out.length - openSurrogates;
    },
    status: () => (state === S_FAIL ? "failed" : state === S_DONE ? "complete" : "pending"),
    inString: () => state === S_STR || state === S_KEY,
    commitEnd: () => commit,
    isObject: () => isObject,
    isEmptyObject: () => isObject && state === S_DONE && members === 0,
    valueEnd: () => end,
    sanitized: () => sanitized,
    closers() {
      let s = "";
      if (state === S_FAIL || state === S_START || escapeState !== 0) return undefined;
      if (state === S_STR) s = '"';
      else if (state === S_KEY) s = '":null';
      else if (state === S_COLON) s = ":null";
      else if (state === S_LIT) s = literal.slice(literalPos);
      else if (state === S_NUM && !numberMayEnd(num)) return undefined;
      else if (state === S_OBJ_KEY || (state === S_VALUE && !arrayJustOpened)) return undefined;
      for (let i = stack.length - 1; i >= 0; i -= 1) s += stack[i] === OPEN_OBJECT ? "}" : "]";
      return s;
    },
  };
}

/** Closes a committed argument prefix with the fewest characters (for a call whose rest went bad). */
export function closeJsonPrefix(prefix: string): string {
  const v = createJsonSyntaxValidator({ trailing: "absorb" });
  for (let i = 0; i < prefix.length; i += 1) v.feed(prefix[i] as string, prefix.charCodeAt(i));
  if (v.status() === "complete") return prefix;
  return prefix + (v.closers() ?? "");
}
