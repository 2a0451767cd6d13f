import { repairJson } from "../parser/json-repair.js";

/** What the streaming tokenizer learned about a `<tool_call>` block by the time it ended. */
export interface JsonBlockSnapshot {
  /** Text between the sentinels (no close tag). */
  readonly body: string;
  /** The outer `{…}` closed cleanly with nothing but whitespace after it. */
  readonly outerComplete: boolean;
  /** The block ended while its arguments were being read (nothing broke them before). */
  readonly argumentsOpen: boolean;
  readonly name: string | undefined;
  readonly argumentsKind: "missing" | "null" | "string" | "object" | "other";
  readonly arguments: ArgumentsSnapshot | undefined;
}

export interface ArgumentsSnapshot {
  /** The arguments JSON text (decoded from a string, or the raw object), control chars escaped. */
  readonly text: string;
  readonly status: "pending" | "complete" | "failed";
  readonly isObject: boolean;
  readonly isEmptyObject: boolean;
  readonly sanitized: boolean;
  /** A stray backslash or an inner quote was kept as the character written (escape added). */
  readonly literalized: boolean;
  /** What closes the arguments where they stopped (quotes, brackets), if anything can. */
  readonly closers: string | undefined;
  /** Text length right after the top-level value. */
  readonly valueEnd: number;
  /** The string holding the arguments was closed (string form only). */
  readonly closed: boolean;
}

export type CallDecision =
  | {
      readonly ok: true;
      readonly name: string;
      readonly arguments: string;
      readonly repaired: boolean;
      /** The arguments are the streamed argument text's value: they extend any streamed prefix. */
      readonly fromStreamedText?: boolean;
    }
  | { readonly ok: false; readonly name: string | undefined; readonly detail: string };

const EMPTY_ARGS = "{}";

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Parses `text` as a JSON object, or undefined. */
export function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return isPlainObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The text with only its missing escapes, quotes and brackets added; it must be a JSON object. */
function repairObject(text: string): string | undefined {
  const repaired = repairJson(text);
  return repaired !== undefined && parseObject(repaired) ? repaired : undefined;
}

/** Arguments exactly as streamed, when the tokenizer saw a clean JSON object (or none at all). */
function cleanArguments(s: JsonBlockSnapshot): { text: string; sanitized: boolean } | undefined {
  const a = s.arguments;
  if (s.argumentsKind === "missing" || s.argumentsKind === "null") {
    return s.outerComplete ? { text: EMPTY_ARGS, sanitized: false } : undefined;
  }
  if (!a) return undefined;
  if (s.argumentsKind === "string" && a.closed && a.text.trim() === "")
    return { text: EMPTY_ARGS, sanitized: false };
  if (a.status !== "complete" || !a.isObject) return undefined;
  const text = a.isEmptyObject ? EMPTY_ARGS : a.text.slice(0, a.valueEnd);
  return { text, sanitized: a.sanitized || a.literalized };
}

/**
 * Arguments that stopped before their end, the block closed by its tag outside any string
 * (`{"path":"a.md"</tool_call>`): the quotes and brackets they lack are added, nothing else.
 */
function closedArguments(s: JsonBlockSnapshot): string | undefined {
  const a = s.arguments;
  if (a?.status !== "pending" || !a.isObject || a.closers === undefined) return undefined;
  // Arguments cut short by something else than the block's end (the outer object broke) are not closed.
  if (!s.argumentsOpen && !s.outerComplete) return undefined;
  return a.text + a.closers;
}

/**
 * Decides what a finished `<tool_call>` block means. Without `allowRepair` (strict tools) only a
 * clean block passes. Otherwise, in order: the streamed arguments (their missing escapes added
 * while they were read); the same arguments with their missing closing quotes and brackets;
 * arguments written as an unescaped object inside the string. A repair only adds what is
 * missing, so a repaired call carries exactly the value written; anything else is not a call.
 * Every non-clean path reports `repaired: true`.
 */
export function decideJsonCall(s: JsonBlockSnapshot, allowRepair: boolean): CallDecision {
  const name = s.name;
  const clean = cleanArguments(s);
  if (name !== undefined && clean) {
    const repaired = clean.sanitized || !s.outerComplete;
    if (!repaired || allowRepair)
      return { ok: true, name, arguments: clean.text, repaired, fromStreamedText: true };
  }
  if (!allowRepair) {
    return { ok: false, name, detail: describeFailure(s) };
  }
  const closed = name === undefined ? undefined : closedArguments(s);
  if (name !== undefined && closed !== undefined)
    return { ok: true, name, arguments: closed, repaired: true, fromStreamedText: true };
  const unescaped = unescapedArguments(s.body);
  if (unescaped) return { ok: true, ...unescaped, repaired: true };
  return { ok: false, name, detail: describeFailure(s) };
}

function describeFailure(s: JsonBlockSnapshot): string {
  if (s.name === undefined) return 'the block is not a JSON object with a string "name"';
  if (s.argumentsKind === "other") return '"arguments" is neither a JSON string nor an object';
  if (s.arguments?.status === "complete" && !s.arguments.isObject) return "arguments are not a JSON object";
  if (s.arguments?.literalized) return "arguments hold an unescaped quote or backslash inside a string";
  if (s.arguments?.sanitized) return "arguments contain raw control characters inside strings";
  return "arguments are not valid JSON";
}

/** `{"name":"x","arguments":"{"k":"v"}"}`: the object was pasted into the string unescaped. */
const UNESCAPED_ARGS = /^\s*\{\s*"name"\s*:\s*"([^"\\]*)"\s*,\s*"arguments"\s*:\s*"(\{[\s\S]*\})"\s*\}\s*$/;

function unescapedArguments(body: string): { name: string; arguments: string } | undefined {
  const m = UNESCAPED_ARGS.exec(body);
  if (!m || m[1] === undefined || m[2] === undefined) return undefined;
  const name = m[1].trim();
  if (name === "" || !parseObject(m[2])) return undefined;
  return { name, arguments: m[2] };
}

/**
 * The raw input of a block written for a custom tool: `{"name": …, "input": "…"}`, or an
 * `"arguments"` string that is not a JSON object (the input itself). Undefined otherwise.
 */
export function customToolInput(body: string, allowRepair: boolean): string | undefined {
  const parsed = parseObject(body) ?? (allowRepair ? parseObject(repairObject(body) ?? "") : undefined);
  if (typeof parsed?.input === "string") return parsed.input;
  const args = parsed?.arguments;
  return typeof args === "string" && parseObject(args) === undefined ? args : undefined;
}
