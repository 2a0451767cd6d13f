import { jsonrepair } from "jsonrepair";

/** What the streaming tokenizer learned about a `<tool_call>` block by the time it ended. */
export interface JsonBlockSnapshot {
  /** Text between the sentinels (no close tag). */
  readonly body: string;
  /** The outer `{…}` closed cleanly with nothing but whitespace after it. */
  readonly outerComplete: boolean;
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
function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return isPlainObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** One jsonrepair pass; the result must be a JSON object. */
function repairObject(text: string): string | undefined {
  try {
    const repaired = jsonrepair(text);
    return parseObject(repaired) ? repaired : undefined;
  } catch {
    return undefined;
  }
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
  return { text: a.isEmptyObject ? EMPTY_ARGS : a.text.slice(0, a.valueEnd), sanitized: a.sanitized };
}

/**
 * Decides what a finished `<tool_call>` block means. Without `allowRepair` (strict tools) only a
 * clean block passes. Otherwise, in order: the streamed arguments; one jsonrepair pass on the
 * arguments; arguments written as an unescaped object inside the string; jsonrepair on the
 * whole body. Every non-clean path reports `repaired: true`.
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
  if (name !== undefined && s.outerComplete && s.arguments && s.argumentsKind !== "other") {
    const repaired = repairObject(s.arguments.text);
    if (repaired !== undefined) return { ok: true, name, arguments: repaired, repaired: true };
  }
  const unescaped = unescapedArguments(s.body);
  if (unescaped) return { ok: true, ...unescaped, repaired: true };
  const whole = repairWholeBody(s.body);
  if (whole) return { ok: true, ...whole, repaired: true };
  return { ok: false, name, detail: describeFailure(s) };
}

function describeFailure(s: JsonBlockSnapshot): string {
  if (s.name === undefined) return 'the block is not a JSON object with a string "name"';
  if (s.argumentsKind === "other") return '"arguments" is neither a JSON string nor an object';
  if (s.arguments?.status === "complete" && !s.arguments.isObject) return "arguments are not a JSON object";
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

function repairWholeBody(body: string): { name: string; arguments: string } | undefined {
  const outer = repairObject(body);
  const parsed = outer === undefined ? undefined : parseObject(outer);
  if (!parsed || typeof parsed.name !== "string" || parsed.name.trim() === "") return undefined;
  const name = parsed.name.trim();
  const args = parsed.arguments;
  if (args === undefined || args === null || args === "") return { name, arguments: EMPTY_ARGS };
  if (isPlainObject(args)) return { name, arguments: JSON.stringify(args) };
  if (typeof args !== "string") return undefined;
  if (parseObject(args)) return { name, arguments: args };
  const repaired = repairObject(args);
  return repaired === undefined ? undefined : { name, arguments: repaired };
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
