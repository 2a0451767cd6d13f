import type { ToolSpec } from "../model/tool-spec.js";
import type { AfterBlock, BlockContext, CallStream } from "./call-stream.js";
import { createCallStream, rejectBlock, schemaProblem } from "./call-stream.js";
import { advanceMatch, utf8Width } from "./chars.js";
import { parseUseToolContent } from "./copilot-xml.js";
import type { OpenBlock } from "./json-block.js";
import { createTextBuffer } from "./text-buffer.js";

export const USE_TOOL_OPEN = "<use_tool>";
export const USE_TOOL_CLOSE = "</use_tool>";
const NAME_OPEN = "<name>";
const NAME_CLOSE = "</name>";

/**
 * `<use_tool><name>X</name><k>v</k>…</use_tool>` (legacy Obsidian Copilot). The call starts as
 * soon as `<name>` is complete and names a known soft tool; the arguments follow as one delta
 * when the block ends, because XML values are only known once their element closes.
 */
export function openUseToolBlock(ctx: BlockContext): OpenBlock {
  const raw = createTextBuffer(false);
  let bytes = 0;
  let status: "open" | "closed" | "too-large" = "open";
  let closeMatched = 0;
  // Name detection mirrors Copilot: the first `<name>` and the first `</name>` after it.
  let namePhase: "seek" | "read" | "done" = "seek";
  let nameMatched = 0;
  let nameText = "";
  let name: string | undefined;
  let tool: ToolSpec | undefined;
  let call: CallStream | undefined;

  const onNameChar = (ch: string, c: number) => {
    if (namePhase === "seek") {
      nameMatched = advanceMatch(NAME_OPEN, nameMatched, c);
      if (nameMatched === NAME_OPEN.length) {
        namePhase = "read";
        nameMatched = 0;
      }
      return;
    }
    nameText += ch;
    nameMatched = advanceMatch(NAME_CLOSE, nameMatched, c);
    if (nameMatched < NAME_CLOSE.length) return;
    namePhase = "done";
    name = nameText.slice(0, -NAME_CLOSE.length).trim();
    tool = ctx.tools.get(name);
    if (tool && !tool.strict) {
      call = createCallStream(ctx, name);
      call.begin();
    }
  };

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
      if (namePhase !== "done") onNameChar(s[i] as string, c);
    }
    raw.append(s.slice(start, i));
    return i;
  };

  const finish = (): AfterBlock => {
    const written = raw.toString();
    const content = status === "closed" ? written.slice(0, -USE_TOOL_CLOSE.length) : written;
    const blockRaw = USE_TOOL_OPEN + written;
    const strict = tool?.strict === true;
    const complete = status === "closed";
    if (call) {
      call.finish({
        arguments: parseUseToolContent(content)?.arguments ?? "{}",
        repaired: !complete,
        raw: blockRaw,
        format: "xml",
        ...(status === "too-large" ? { truncated: true } : {}),
      });
      return status === "too-large" ? "discard" : "drop-whitespace";
    }
    if (status === "too-large") {
      rejectBlock(
        ctx,
        "block-too-large",
        strict,
        `the block exceeds ${ctx.maxBlockBytes} bytes`,
        blockRaw,
        name,
      );
      return strict ? "discard" : "passthrough";
    }
    const parsed = parseUseToolContent(content);
    if (!parsed) {
      const detail = complete ? "the block has no <name>" : `the stream ended inside ${USE_TOOL_OPEN}`;
      rejectBlock(ctx, complete ? "unknown-tool" : "unterminated", false, detail, blockRaw, undefined);
      return "text";
    }
    if (!tool) {
      const reason = complete ? "unknown-tool" : "unterminated";
      rejectBlock(ctx, reason, false, `unknown tool "${parsed.name}"`, blockRaw, parsed.name);
      return "text";
    }
    // Only a strict tool gets here (a soft one started its call when the name arrived); a
    // best-effort parse of an unclosed block would be a repair, which strict tools never get.
    const problem = complete
      ? schemaProblem(ctx, parsed.name, parsed.arguments)
      : `the stream ended inside ${USE_TOOL_OPEN}`;
    if (problem !== undefined) {
      rejectBlock(ctx, complete ? "schema-mismatch" : "unterminated", true, problem, blockRaw, parsed.name);
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
