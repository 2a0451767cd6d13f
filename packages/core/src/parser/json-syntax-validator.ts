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
 *
 * With `repair`, what JSON would reject inside a value string is kept as the character written,
 * by adding the escape it lacks (reported as `literalized`): a backslash that starts no valid
 * escape (`C:\q`, a backslash before a raw tab), and a quote after which the JSON could not go on
 * (`"He said "hello" to me"`: a quote ends the string only before `,` or the closing bracket).
 * A quote followed by another quote, `:` or an opening or other bracket is ambiguous (a missing
 * comma?) and fails: nothing is ever dropped or guessed, so a repaired value is the text written.
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
  /** Inside a string, or right after a quote that may not end it (`repair`). */
  inString(): boolean;
  /** Right after a quote whose meaning the next character decides (`repair`). */
  quotePending(): boolean;
  /** Text length of the last commit point (0 until the top-level object has content). */
  commitEnd(): number;
  /** The top-level value is an object (`{` was its first character). */
  isObject(): boolean;
  /** The top-level object closed with no members. */
  isEmptyObject(): boolean;
  /** Text length right after the top-level value (-1 while pending). */
  valueEnd(): number;
  sanitized(): boolean;
  /** A stray backslash or an inner quote was kept as a character (`repair` only). */
  literalized(): boolean;
  /** Characters that close everything open, or undefined when no valid closing exists. */
  closers(): string | undefined;
}

export interface JsonSyntaxValidatorOptions {
  /** Where the (sanitised) text goes; omit to only check syntax. Leading whitespace is skipped. */
  readonly text?: TextBuffer | undefined;
  /** After the value: `reject` hands characters back, `absorb` keeps whitespace and fails on anything else. */
  readonly trailing: "reject" | "absorb";
  /** Keep stray backslashes and inner quotes of value strings as written (see above). */
  readonly repair?: boolean | undefined;
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
/** Right after a quote inside a value string (`repair`): whether it ends the string is pending. */
const S_QUOTE = 12;

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
const isSimpleEscape = (c: number) =>
  c === 34 || c === 92 || c === 47 || c === 98 || c === 102 || c === 110 || c === 114 || c === 116;
const escapeControl = (c: number) => CONTROL_ESCAPES[c] ?? `\\u${c.toString(16).padStart(4, "0")}`;

/** A class, not closures: one or two per block, and each closure would cost an object. */
class JsonSyntaxChecker implements JsonSyntaxValidator {
  private readonly out: TextBuffer | undefined;
  private readonly rejectTrailing: boolean;
  private readonly repair: boolean;
  private readonly stack: number[] = [];
  private state = S_START;
  private arrayJustOpened = false;
  private escapeState = 0; // 0 none, 1 after backslash, 2..5 inside \uXXXX
  private num = N_INT;
  private literal = "";
  private literalPos = 0;
  private commit = 0;
  private objectValue = false;
  private members = 0;
  private end = -1;
  private wasSanitized = false;
  private wasLiteralized = false;
  /** Digits of a `\u` escape being read (the escape is emitted once complete). */
  private hex = "";
  /** Whitespace after a quote in `S_QUOTE` (emitted once the quote is decided). */
  private quoteWs = "";

  constructor(options: JsonSyntaxValidatorOptions) {
    this.out = options.text;
    this.rejectTrailing = options.trailing === "reject";
    this.repair = options.repair === true;
  }

  private emit(s: string): void {
    this.out?.append(s);
  }
  private markCommit(): void {
    if (this.objectValue && this.out) this.commit = this.out.length;
  }
  private fail(ch: string): boolean {
    this.state = S_FAIL;
    this.emit(ch);
    return true;
  }
  private valueDone(): void {
    if (this.stack.length === 0) {
      this.state = S_DONE;
      this.end = this.out ? this.out.length : 0;
    } else {
      this.state = S_AFTER;
      this.markCommit();
    }
  }
  private open(ch: string, c: number): void {
    this.emit(ch);
    this.stack.push(c);
    if (c === OPEN_OBJECT) this.state = S_OBJ_FIRST;
    else {
      this.state = S_VALUE;
      this.arrayJustOpened = true;
    }
    if (this.stack.length >= 2) this.markCommit();
  }
  private close(ch: string): void {
    this.emit(ch);
    this.stack.pop();
    this.valueDone();
  }
  private startValue(ch: string, c: number): boolean {
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) this.open(ch, c);
    else if (c === 34) {
      this.emit(ch);
      this.state = S_STR;
      this.markCommit();
    } else if (c === 45 || isDigit(c)) {
      this.emit(ch);
      this.state = S_NUM;
      this.num = c === 45 ? N_MINUS : c === 48 ? N_ZERO : N_INT;
    } else if (c === 116 || c === 102 || c === 110) {
      this.emit(ch);
      this.state = S_LIT;
      this.literal = c === 116 ? "true" : c === 102 ? "false" : "null";
      this.literalPos = 1;
    } else return this.fail(ch);
    return true;
  }
  /** The escape the model left out, so that what it wrote stays a character of the string. */
  private keepAsWritten(escaped: string): void {
    this.out?.diverge();
    this.emit(escaped);
    this.wasLiteralized = true;
    this.escapeState = 0;
    this.hex = "";
  }
  /** A string's character: kept small, it runs for every character a run does not cover. */
  private stringChar(ch: string, c: number, isKey: boolean): boolean {
    if (this.escapeState !== 0) return this.escapeChar(ch, c, isKey);
    if (c === 34) return this.quote(ch, isKey);
    if (c === 92) {
      // Emitted with the character after it: a stray backslash gets its own escape first.
      this.escapeState = 1;
      return true;
    }
    if (c < 0x20) {
      this.out?.diverge();
      this.emit(escapeControl(c));
      this.wasSanitized = true;
    } else this.emit(ch);
    if (!isKey && !isHighSurrogate(c)) this.markCommit();
    return true;
  }
  private quote(ch: string, isKey: boolean): boolean {
    if (!isKey && this.repair && this.stack.length > 0) {
      this.state = S_QUOTE;
      return true;
    }
    this.emit(ch);
    if (isKey) this.state = S_COLON;
    else this.valueDone();
    return true;
  }
  private escapeChar(ch: string, c: number, isKey: boolean): boolean {
    const repair = this.repair && !isKey;
    const inEscape = this.escapeState;
    if (inEscape === 1) {
      if (c === 117) {
        this.escapeState = 2;
        return true;
      }
      if (!isSimpleEscape(c)) {
        if (!repair) return this.failEscape(ch);
        this.keepAsWritten("\\\\");
        return this.stringChar(ch, c, isKey);
      }
      this.escapeState = 0;
      this.emit("\\");
      this.emit(ch);
    } else if (!isHex(c)) {
      if (!repair) return this.failEscape(ch);
      this.keepAsWritten(`\\\\u${this.hex}`);
      return this.stringChar(ch, c, isKey);
    } else if (inEscape < 5) {
      this.hex += ch;
      this.escapeState = inEscape + 1;
      return true;
    } else {
      this.emit(`\\u${this.hex}${ch}`);
      this.hex = "";
      this.escapeState = 0;
    }
    if (!isKey) this.markCommit();
    return true;
  }
  private failEscape(ch: string): boolean {
    this.emit(this.escapeState === 1 ? "\\" : `\\u${this.hex}`);
    return this.fail(ch);
  }
  /** After a quote in a value string: the string ended, or the quote was one of its characters. */
  private afterQuote(ch: string, c: number): boolean {
    if (isJsonWs(c)) {
      this.quoteWs += ch;
      return true;
    }
    const top = this.stack[this.stack.length - 1];
    const ws = this.quoteWs;
    this.quoteWs = "";
    if (c === 44 || (c === 125 && top === OPEN_OBJECT) || (c === 93 && top === OPEN_ARRAY)) {
      this.emit('"');
      this.valueDone();
      if (ws.length > 0) this.emit(ws);
      return this.feed(ch, c);
    }
    if (c === 34 || c === 58 || c === 123 || c === 125 || c === 91 || c === 93) {
      this.emit(`"${ws}`);
      return this.fail(ch);
    }
    this.state = S_STR;
    this.keepAsWritten('\\"');
    for (let i = 0; i < ws.length; i += 1) this.stringChar(ws[i] as string, ws.charCodeAt(i), false);
    this.markCommit();
    return this.stringChar(ch, c, false);
  }
  /** Undefined when the number ended before `c`: the delimiter still has to be processed. */
  private numberChar(ch: string, c: number): boolean | undefined {
    const next = nextNumberState(this.num, c);
    if (next >= 0) {
      this.num = next;
      this.emit(ch);
      return true;
    }
    if (!numberMayEnd(this.num)) return this.fail(ch);
    this.valueDone();
    return undefined;
  }

  feed(ch: string, c: number): boolean {
    switch (this.state) {
      case S_STR:
        return this.stringChar(ch, c, false);
      case S_KEY:
        return this.stringChar(ch, c, true);
      case S_QUOTE:
        return this.afterQuote(ch, c);
      case S_NUM: {
        const r = this.numberChar(ch, c);
        return r === undefined ? this.feed(ch, c) : r;
      }
      case S_LIT:
        if (c !== this.literal.charCodeAt(this.literalPos)) return this.fail(ch);
        this.emit(ch);
        this.literalPos += 1;
        if (this.literalPos === this.literal.length) this.valueDone();
        return true;
      case S_START:
        if (isJsonWs(c)) return true;
        this.objectValue = c === OPEN_OBJECT;
        return this.startValue(ch, c);
      case S_FAIL:
        this.emit(ch);
        return true;
      case S_DONE:
        if (this.rejectTrailing) return false;
        if (!isJsonWs(c)) return this.fail(ch);
        this.emit(ch);
        return true;
    }
    if (isJsonWs(c)) {
      this.emit(ch);
      return true;
    }
    switch (this.state) {
      case S_VALUE:
        if (c === 93 && this.arrayJustOpened) {
          this.close(ch);
          return true;
        }
        this.arrayJustOpened = false;
        return this.startValue(ch, c);
      case S_OBJ_FIRST:
      case S_OBJ_KEY:
        if (c === 34) {
          this.emit(ch);
          this.state = S_KEY;
          if (this.stack.length === 1) this.members += 1;
          return true;
        }
        if (c === 125 && this.state === S_OBJ_FIRST) {
          this.close(ch);
          return true;
        }
        return this.fail(ch);
      case S_COLON:
        if (c !== 58) return this.fail(ch);
        this.emit(ch);
        this.state = S_VALUE;
        this.arrayJustOpened = false;
        return true;
      default: {
        // S_AFTER
        const top = this.stack[this.stack.length - 1];
        if (c === 44) {
          this.emit(ch);
          this.state = top === OPEN_OBJECT ? S_OBJ_KEY : S_VALUE;
          this.arrayJustOpened = false;
          return true;
        }
        if ((c === 125 && top === OPEN_OBJECT) || (c === 93 && top === OPEN_ARRAY)) {
          this.close(ch);
          return true;
        }
        return this.fail(ch);
      }
    }
  }

  inPlainString(): boolean {
    return (this.state === S_STR || this.state === S_KEY) && this.escapeState === 0;
  }
  feedStringRun(text: string, openSurrogates: number): void {
    this.emit(text);
    // Every character commits except a high surrogate (its pair is not complete yet).
    if (this.state === S_STR && this.objectValue && this.out && openSurrogates < text.length)
      this.commit = this.out.length - openSurrogates;
  }
  status(): "pending" | "complete" | "failed" {
    return this.state === S_FAIL ? "failed" : this.state === S_DONE ? "complete" : "pending";
  }
  inString(): boolean {
    // Right after a quote the string may go on (`"He said "</tool_call> …`): no tag ends it there.
    return this.state === S_STR || this.state === S_KEY || this.state === S_QUOTE;
  }
  quotePending(): boolean {
    return this.state === S_QUOTE;
  }
  commitEnd(): number {
    return this.commit;
  }
  isObject(): boolean {
    return this.objectValue;
  }
  isEmptyObject(): boolean {
    return this.objectValue && this.state === S_DONE && this.members === 0;
  }
  valueEnd(): number {
    return this.end;
  }
  sanitized(): boolean {
    return this.wasSanitized;
  }
  literalized(): boolean {
    return this.wasLiteralized;
  }
  closers(): string | undefined {
    const state = this.state;
    let s = "";
    if (state === S_FAIL || state === S_START || this.escapeState !== 0) return undefined;
    if (state === S_STR || state === S_QUOTE) s = '"';
    else if (state === S_KEY) s = '":null';
    else if (state === S_COLON) s = ":null";
    else if (state === S_LIT) s = this.literal.slice(this.literalPos);
    else if (state === S_NUM && !numberMayEnd(this.num)) return undefined;
    else if (state === S_OBJ_KEY || (state === S_VALUE && !this.arrayJustOpened)) return undefined;
    for (let i = this.stack.length - 1; i >= 0; i -= 1) s += this.stack[i] === OPEN_OBJECT ? "}" : "]";
    return s;
  }
}

export const createJsonSyntaxValidator = (options: JsonSyntaxValidatorOptions): JsonSyntaxValidator =>
  new JsonSyntaxChecker(options);
