import { setImmediate as yieldToLoop } from "node:timers/promises";
import { formatParamPath, GatewayError, invalidRequest } from "@proxy/core";
import type { Context } from "hono";

/**
 * Deepest nesting of objects/arrays a request body may have. Real requests (tool schemas included)
 * stay far below it; a 10k-level body would otherwise overflow the stack in a recursive decoder or
 * schema compiler further in and come back as a 502.
 */
export const MAX_JSON_DEPTH = 128;

/**
 * Most items one array of a request body may hold (messages, input items, contents, tools, …).
 * Decoding costs a few microseconds an item on the event loop: 50,000 messages in a 1.8 MB body
 * held it for 0.27 s. Real conversations stay far below it (a context window fills first).
 */
export const MAX_JSON_ARRAY_ITEMS = 10_000;

/**
 * Most JSON values (objects, arrays, strings, numbers…) a request body may hold in all: decoding
 * costs about two microseconds a value, so this bounds it however the values are nested. Real
 * requests hold a few thousand (a long coding session with its tool schemas, some tens of thousands).
 */
export const MAX_JSON_VALUES = 100_000;

/** Parses a request body: one message for malformed JSON on every surface. */
export const parseJsonText = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    const detail = e instanceof Error ? e.message : String(e);
    throw new GatewayError(
      "invalid_request",
      `We could not parse the JSON body of your request (${detail}). Send a valid JSON object with Content-Type: application/json.`,
      { code: "invalid_json" },
    );
  }
};

/** With the `u` flag a paired surrogate is one code point, so `\p{Cs}` matches only lone halves. */
const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATES = /\p{Cs}/gu;

interface Frame {
  readonly value: unknown;
  readonly depth: number;
  readonly parent: Frame | undefined;
  readonly key: string | number | undefined;
}

/** The `param` of a frame, built only when an error needs it. */
const paramOf = (frame: Frame | undefined): string => {
  const path: Array<string | number> = [];
  for (let f = frame; f?.key !== undefined; f = f.parent)
    path.unshift(typeof f.key === "string" ? f.key.replace(LONE_SURROGATES, "\uFFFD") : f.key);
  return formatParamPath(path);
};

const loneSurrogate = (param: string): GatewayError =>
  invalidRequest(
    `Invalid value for '${param}': the string contains a lone UTF-16 surrogate, which is not valid Unicode.`,
    param === "" ? undefined : param,
    "invalid_unicode",
  );

/**
 * Refuses what JSON allows but nothing behind the edge can carry: nesting deeper than
 * `MAX_JSON_DEPTH`, arrays longer than `MAX_JSON_ARRAY_ITEMS`, more than `MAX_JSON_VALUES` values, and lone UTF-16 surrogates (`"\ud800"`) in any string or key, which a backend's
 * UTF-8 JSON-RPC line cannot encode (codex drops such a line and the turn hangs until its timeout).
 * Iterative, so the check itself cannot overflow the stack; the error names the field.
 */
export const checkJsonValue = (root: unknown, maxDepth = MAX_JSON_DEPTH): void => {
  const stack: Frame[] = [{ value: root, depth: 0, parent: undefined, key: undefined }];
  let values = 0;
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    const { value, depth } = frame;
    if (++values > MAX_JSON_VALUES)
      throw invalidRequest(
        `The request body holds more than ${MAX_JSON_VALUES} JSON values (at '${paramOf(frame)}').`,
        undefined,
        "body_too_complex",
      );
    if (typeof value === "string") {
      if (LONE_SURROGATE.test(value)) throw loneSurrogate(paramOf(frame));
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    if (depth >= maxDepth) {
      const param = paramOf(frame);
      throw invalidRequest(
        `Invalid value for '${param}': objects and arrays may nest at most ${maxDepth} levels deep.`,
        param,
        "nesting_too_deep",
      );
    }
    if (Array.isArray(value)) {
      if (value.length > MAX_JSON_ARRAY_ITEMS) {
        const param = paramOf(frame);
        throw invalidRequest(
          `Invalid value for '${param}': an array may hold at most ${MAX_JSON_ARRAY_ITEMS} items, got ${value.length}.`,
          param,
          "array_too_long",
        );
      }
      for (let i = value.length - 1; i >= 0; i--)
        stack.push({ value: value[i], depth: depth + 1, parent: frame, key: i });
      continue;
    }
    const keys = Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string;
      const child: Frame = {
        value: (value as Record<string, unknown>)[key],
        depth: depth + 1,
        parent: frame,
        key,
      };
      if (LONE_SURROGATE.test(key)) throw loneSurrogate(paramOf(child));
      stack.push(child);
    }
  }
};

/** Parses and checks a body text (see `checkJsonValue`). */
export const decodeJsonText = (text: string): unknown => {
  const value = parseJsonText(text);
  checkJsonValue(value);
  return value;
};

/**
 * Bodies from this size up are parsed and checked in separate turns of the event loop (as
 * count-tokens.ts counts): parsing a 5 MB photo's body and checking it take tens of ms each, and one
 * unbroken chain of them with the surface's decode held the loop past 50 ms.
 */
const LARGE_BODY_CHARS = 1 << 20;

/** Reads the request body as JSON, with the kit's one invalid-JSON message and its checks. */
export const readJsonBody = async (c: Context): Promise<unknown> => {
  const text = await c.req.text();
  if (text.length < LARGE_BODY_CHARS) return decodeJsonText(text);
  await yieldToLoop();
  const value = parseJsonText(text);
  await yieldToLoop();
  checkJsonValue(value);
  await yieldToLoop();
  return value;
};
