import { customCallArguments } from "../model/custom-call.js";
import type { BlockFormat, OpenBlock } from "../parser/block-format.js";
import { openBufferedBlock } from "../parser/buffered-block.js";
import type { AfterBlock, BlockContext } from "../parser/call-stream.js";
import { createCallStream, rejectBlock, schemaProblem } from "../parser/call-stream.js";
import { parseObject } from "./json-call-decision.js";

const OPEN = "<custom_tool_call>";
const CLOSE = "</custom_tool_call>";

/** The first line of a block: the tool name. */
const nameOf = (content: string): string | undefined => {
  const end = content.indexOf("\n");
  const name = (end < 0 ? content : content.slice(0, end)).trim();
  return name === "" ? undefined : name;
};

/** Everything after the first line, minus the one line break written before the close tag. */
const inputOf = (content: string): string => {
  const start = content.indexOf("\n");
  if (start < 0) return "";
  const input = content.slice(start + 1);
  return input.endsWith("\n") ? input.slice(0, -1) : input;
};

function decideRawBlock(ctx: BlockContext, content: string, raw: string): AfterBlock {
  const name = nameOf(content);
  const tool = name === undefined ? undefined : ctx.tools.get(name);
  if (name === undefined || !tool) {
    const detail = name === undefined ? "the block names no tool" : `unknown tool "${name}"`;
    rejectBlock(ctx, "unknown-tool", false, detail, raw, name);
    return "text";
  }
  const input = inputOf(content);
  // A function tool written in this form: its input has to be the JSON arguments object.
  const args = tool.custom ? customCallArguments(input) : parseObject(input) && input;
  const problem =
    args === undefined
      ? "the input is not a JSON arguments object"
      : tool.strict
        ? schemaProblem(ctx, name, args)
        : undefined;
  if (args === undefined || problem !== undefined) {
    rejectBlock(
      ctx,
      args === undefined ? "invalid-json" : "schema-mismatch",
      tool.strict,
      problem ?? "",
      raw,
      name,
    );
    return tool.strict ? "drop-whitespace" : "text";
  }
  const ended = createCallStream(ctx, name).finish({ arguments: args, repaired: false, raw, format: "raw" });
  return ended ? "drop-whitespace" : "text";
}

/** An earlier call in this form: a custom tool's raw input, or a function tool's JSON arguments. */
function renderRawCall(name: string, argumentsJson: string): string {
  const input = parseObject(argumentsJson)?.input;
  return `${OPEN}${name}\n${typeof input === "string" ? input : argumentsJson}\n${CLOSE}`;
}

/**
 * `<custom_tool_call>name⏎raw input⏎</custom_tool_call>` for custom (freeform) tools such as
 * codex's `apply_patch`: the input is written as is, with no JSON escaping, so only the close tag
 * itself cannot appear in it. Not among the default formats: a turn with custom tools adds it.
 */
export const CUSTOM_TOOL_RAW_FORMAT: BlockFormat = {
  id: "raw",
  open: OPEN,
  close: CLOSE,
  openBlock: (ctx: BlockContext): OpenBlock =>
    openBufferedBlock(ctx, { open: OPEN, close: CLOSE, nameOf, decide: decideRawBlock }),
  renderCall: renderRawCall,
  promptRules: [
    "To call a custom tool (one whose input is free text, not JSON), write a block in exactly this form:",
    `${OPEN}tool_name\n<the input, exactly as the tool's description and grammar ask>\n${CLOSE}`,
    "- The first line is the tool name; everything after it up to the closing tag is the input, written as is, with no escaping.",
  ],
};
