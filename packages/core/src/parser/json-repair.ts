import { createJsonSyntaxValidator } from "./json-syntax-validator.js";
import { createTextBuffer } from "./text-buffer.js";

/**
 * `text` with only what it lacks added (the escapes of stray backslashes and inner quotes, raw
 * control characters escaped, the brackets where it stops after a complete value), or undefined when
 * that is not enough to make it one JSON value. Linear; it never drops or reorders a character.
 */
export function repairJson(text: string): string | undefined {
  const out = createTextBuffer(false);
  const v = createJsonSyntaxValidator({ text: out, trailing: "absorb", repair: true });
  for (let i = 0; i < text.length; i += 1) v.feed(text[i] as string, text.charCodeAt(i));
  if (v.status() === "complete") return out.toString();
  // A string still open may have been cut off: closing it could shorten the value.
  const closers = v.status() === "pending" && (!v.inString() || v.quotePending()) ? v.closers() : undefined;
  return closers === undefined ? undefined : out.toString() + closers;
}
