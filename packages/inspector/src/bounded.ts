import type { Redactor } from "./redact.js";
import type { RequestLog, RequestRecord } from "./request-log.js";

/** Longest kept text of a record's own fields: they go in every list row and live event. */
export const FIELD_LIMITS = {
  path: 512,
  requestId: 128,
  model: 256,
  error: 2_000,
  /** One string inside an error body (its message, most often). */
  errorText: 4_000,
} as const;

/**
 * About how many characters `value` takes as JSON, without writing it: a walk summing string
 * lengths (each O(1)) costs far less than `JSON.stringify` on a multi-megabyte summary.
 */
export const jsonSize = (value: unknown): number => {
  if (typeof value === "string") return value.length + 2;
  if (value === null || typeof value !== "object") return 8;
  let size = 2;
  if (Array.isArray(value)) {
    for (const v of value) size += jsonSize(v) + 1;
    return size;
  }
  const record = value as Record<string, unknown>;
  for (const k in record) if (Object.hasOwn(record, k)) size += k.length + 4 + jsonSize(record[k]);
  return size;
};

const MAX_DEPTH = 6;
const MAX_ITEMS = 32;

/**
 * A JSON value (an error body) with each string cut, arrays and objects to their first 32 entries
 * and nesting to 6 levels: its size is bounded whatever was sent. Returns the value and its size
 * as JSON, about.
 */
export const boundedValue = (r: Redactor, value: unknown, depth = 0): { value: unknown; size: number } => {
  if (typeof value === "string") {
    const s = r.cut(value, FIELD_LIMITS.errorText);
    return { value: s, size: s.length + 2 };
  }
  if (value === null || typeof value !== "object") return { value, size: 8 };
  if (depth >= MAX_DEPTH) return { value: "[nested too deep]", size: 20 };
  let size = 2;
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((v) => {
      const b = boundedValue(r, v, depth + 1);
      size += b.size + 1;
      return b.value;
    });
    if (value.length > MAX_ITEMS) items.push(`[${value.length - MAX_ITEMS} more items]`);
    return { value: items, size };
  }
  const out: Record<string, unknown> = {};
  let n = 0;
  const record = value as Record<string, unknown>;
  for (const k in record) {
    if (!Object.hasOwn(record, k)) continue;
    const v = record[k];
    if (n++ === MAX_ITEMS) {
      out["…"] = "more fields not kept";
      break;
    }
    const key = r.cut(k, FIELD_LIMITS.model);
    const b = boundedValue(r, v, depth + 1);
    out[key] = b.value;
    size += key.length + b.size + 4;
  }
  return { value: out, size };
};

/**
 * Keeps the error body the client got, bounded (every string cut) and counted. Without bodies only
 * its kind is kept: an upstream's message may quote the prompt.
 */
export const keepErrorBody = (
  log: RequestLog,
  redactor: Redactor,
  record: RequestRecord,
  body: unknown,
  bodies: boolean,
): void => {
  const bounded = boundedValue(redactor, bodies ? body : withoutMessages(body));
  record.errorBody = bounded.value;
  log.count(record, bounded.size);
};

/** An error body's `error.type`/`code`/`param` (and status), its messages left out. */
const withoutMessages = (body: unknown): unknown => {
  const error = (body as { error?: unknown } | null)?.error;
  if (error === null || typeof error !== "object")
    return { error: { message: "[not recorded: bodies off]" } };
  const { type, code, param, status } = error as Record<string, unknown>;
  return { error: { type, code, param, status, message: "[not recorded: bodies off]" } };
};
