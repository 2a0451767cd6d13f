import type { OpenBlock } from "../parser/block-format.js";
import { openBufferedBlock } from "../parser/buffered-block.js";
import type { AfterBlock, BlockContext } from "../parser/call-stream.js";
import { createCallStream, rejectBlock, schemaProblem } from "../parser/call-stream.js";
import { parseUseToolContent, useToolName } from "./copilot-xml.js";

export const USE_TOOL_OPEN = "<use_tool>";
export const USE_TOOL_CLOSE = "</use_tool>";

/** A closed `<use_tool>` block: a call of a known tool (strict ones must match their schema). */
function decideUseTool(ctx: BlockContext, content: string, raw: string): AfterBlock {
  const parsed = parseUseToolContent(content);
  if (!parsed) {
    rejectBlock(ctx, "unknown-tool", false, "the block has no <name>", raw, undefined);
    return "text";
  }
  const tool = ctx.tools.get(parsed.name);
  if (!tool) {
    rejectBlock(ctx, "unknown-tool", false, `unknown tool "${parsed.name}"`, raw, parsed.name);
    return "text";
  }
  const problem = tool.strict ? schemaProblem(ctx, parsed.name, parsed.arguments) : undefined;
  if (problem !== undefined) {
    rejectBlock(ctx, "schema-mismatch", true, problem, raw, parsed.name);
    return "drop-whitespace";
  }
  const ended = createCallStream(ctx, parsed.name).finish({
    arguments: parsed.arguments,
    repaired: false,
    raw,
    format: "xml",
  });
  // Arguments no mode accepts (a prototype key, say) were given back as text.
  return ended ? "drop-whitespace" : "text";
}

/**
 * `<use_tool><name>X</name><k>v</k>…</use_tool>` (legacy Obsidian Copilot). XML values are only
 * known once their element closes, so the whole call is emitted when the block closes.
 */
export const openUseToolBlock = (ctx: BlockContext): OpenBlock =>
  openBufferedBlock(ctx, {
    open: USE_TOOL_OPEN,
    close: USE_TOOL_CLOSE,
    nameOf: useToolName,
    decide: decideUseTool,
  });
