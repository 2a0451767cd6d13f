import type { OpenBlock } from "../parser/block-format.js";
import type { AfterBlock, BlockContext } from "../parser/call-stream.js";
import { createCallStream, rejectBlock, schemaProblem } from "../parser/call-stream.js";
import { advanceMatch, utf8Width } from "../parser/chars.js";
import { createTextBuffer } from "../parser/text-buffer.js";
import { parseUseToolContent, useToolName } from "./copilot-xml.js";

export const USE_TOOL_OPEN = "<use_tool>";
export const USE_TOOL_CLOSE = "</use_tool>";

/**
 * `<use_tool><name>X</name><k>v</k>…</use_tool>` (legacy Obsidian Copilot). XML values are only
 * known once their element closes, so the whole call (start, arguments, end) is emitted when the
 * block closes; a block that never closes or outgrows its budget is never a call.
 */
export function openUseToolBlock(ctx: BlockContext): OpenBlock {
  const raw = createTextBuffer(false);
  let bytes = 0;
  let status: "open" | "closed" | "too-large" = "open";
  let closeMatched = 0;

  const feed = (s: string, start: number): number => {
    let i = start;
    for (; i < s.length; i += 1) {
      const c = s.charCodeAt(i);
      bytes += utf8Width(c);
      if (bytes > ctx.maxBlockBytes) {
        status = "too-large";
        break;
      }
      closeMatched = advanceMatch(USE_TOOL_CLOSE, closeMatched, c);
      if (closeMatched === USE_TOOL_CLOSE.length) {
        status = "closed";
        i += 1;
        break;
      }
    }
    raw.append(s.slice(start, i));
    return i;
  };

  const finish = (): AfterBlock => {
    const written = raw.toString();
    const blockRaw = USE_TOOL_OPEN + written;
    if (status !== "closed") {
      const name = useToolName(written);
      const strict = name !== undefined && ctx.tools.get(name)?.strict === true;
      const tooLarge = status === "too-large";
      const detail = tooLarge
        ? `the block exceeds ${ctx.maxBlockBytes} bytes`
        : `the stream ended inside ${USE_TOOL_OPEN}`;
      rejectBlock(ctx, tooLarge ? "block-too-large" : "unterminated", strict, detail, blockRaw, name);
      if (tooLarge) return strict ? "discard" : "passthrough";
      return strict ? "drop-whitespace" : "text";
    }
    const parsed = parseUseToolContent(written.slice(0, -USE_TOOL_CLOSE.length));
    if (!parsed) {
      rejectBlock(ctx, "unknown-tool", false, "the block has no <name>", blockRaw, undefined);
      return "text";
    }
    const tool = ctx.tools.get(parsed.name);
    if (!tool) {
      rejectBlock(ctx, "unknown-tool", false, `unknown tool "${parsed.name}"`, blockRaw, parsed.name);
      return "text";
    }
    const problem = tool.strict ? schemaProblem(ctx, parsed.name, parsed.arguments) : undefined;
    if (problem !== undefined) {
      rejectBlock(ctx, "schema-mismatch", true, problem, blockRaw, parsed.name);
      return "drop-whitespace";
    }
    createCallStream(ctx, parsed.name).finish({
      arguments: parsed.arguments,
      repaired: false,
      raw: blockRaw,
      format: "xml",
    });
    return "drop-whitespace";
  };

  return { feed, state: () => status, finish };
}
