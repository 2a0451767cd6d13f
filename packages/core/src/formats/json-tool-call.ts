import type { BlockFormat } from "../parser/block-format.js";
import { openJsonBlock, TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from "./json-block.js";
import { parseObject } from "./json-call-decision.js";

export interface JsonBlockFormatOptions {
  /** The opening delimiter (default `<tool_call>`). */
  readonly start?: string | undefined;
  /** The closing delimiter (default `</tool_call>`). */
  readonly end?: string | undefined;
  /**
   * How the model is taught, and earlier calls are rendered, to write `arguments`: a JSON-encoded
   * string (default) or the object itself (hermes/qwen chat templates). The parser reads both.
   */
  readonly arguments?: "string" | "object" | undefined;
}

/** A delimiter the parser can find unambiguously, or the reason it cannot (naming the option). */
const delimiterProblem = (option: "start" | "end", tag: unknown): string | undefined => {
  const at = `jsonBlockFormat: option "${option}"`;
  if (typeof tag !== "string") return `${at} must be a string`;
  if (tag.length === 0) return `${at} must not be empty`;
  // The scanner stops only at `<`, and a failed match restarts only there (linear, no backtracking).
  if (tag[0] !== "<") return `${at} must start with "<" (got ${JSON.stringify(tag)})`;
  if (tag.indexOf("<", 1) >= 0) return `${at} may hold no "<" but its first character`;
  if (tag.length === 1) return `${at} must be longer than "<"`;
  // A line break inside a tag would be read by the Markdown fence detector first.
  if (/[\r\n]/.test(tag)) return `${at} must not contain a line break`;
  return undefined;
};

const checkTags = (start: string, end: string): void => {
  const problem = delimiterProblem("start", start) ?? delimiterProblem("end", end);
  if (problem !== undefined) throw new TypeError(problem);
  if (start === end) throw new TypeError('jsonBlockFormat: options "start" and "end" must differ');
  if (end.startsWith(start) || start.startsWith(end))
    throw new TypeError('jsonBlockFormat: option "start" and option "end" may not be a prefix of each other');
};

/**
 * The JSON block format between `start` and `end`: `start{"name": …, "arguments": …}end`. Both
 * delimiters start with `<` and hold no other `<` and no line break, differ, and neither is a
 * prefix of the other; anything else throws a TypeError naming the option. The default format is
 * this with no options.
 */
export const jsonBlockFormat = (options: JsonBlockFormatOptions = {}): BlockFormat => {
  const start = options.start ?? TOOL_CALL_OPEN;
  const end = options.end ?? TOOL_CALL_CLOSE;
  const asObject = options.arguments === "object";
  if (options.arguments !== undefined && options.arguments !== "string" && !asObject)
    throw new TypeError('jsonBlockFormat: option "arguments" must be "string" or "object"');
  checkTags(start, end);
  const renderCall = asObject
    ? (name: string, argumentsJson: string): string =>
        parseObject(argumentsJson) !== undefined
          ? `${start}{"name":${JSON.stringify(name)},"arguments":${argumentsJson}}${end}`
          : `${start}${JSON.stringify({ name, arguments: argumentsJson })}${end}`
    : (name: string, argumentsJson: string): string =>
        `${start}${JSON.stringify({ name, arguments: argumentsJson })}${end}`;
  return {
    id: "json",
    open: start,
    close: end,
    openBlock: openJsonBlock({ open: start, close: end }),
    renderCall,
    promptRules: asObject
      ? [
          "To call a function, write a tool-call block in exactly this form:",
          `${start}{"name":"<function name>","arguments":<the arguments object>}${end}`,
          '- Write "name" first, then "arguments": a JSON object matching the schema.',
        ]
      : [
          "To call a function, write a tool-call block in exactly this form:",
          `${start}{"name":"<function name>","arguments":"<the arguments object, JSON-encoded as a string>"}${end}`,
          '- Write "name" first, then "arguments": a JSON string whose content is a JSON object matching the schema.',
        ],
  };
};

/** `<tool_call>{"name": …, "arguments": …}</tool_call>`, the format taught by default. */
export const JSON_TOOL_CALL_FORMAT: BlockFormat = jsonBlockFormat();
