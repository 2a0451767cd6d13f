import type { BlockFormat } from "../parser/block-format.js";
import { renderUseToolXml } from "../prompt/use-tool-xml.js";
import { openUseToolBlock, USE_TOOL_CLOSE, USE_TOOL_OPEN } from "./use-tool-block.js";

/** Obsidian Copilot 3.0–3.1's `<use_tool><name>…</name><param>value</param></use_tool>`. */
export const USE_TOOL_XML_FORMAT: BlockFormat = {
  id: "xml",
  open: USE_TOOL_OPEN,
  close: USE_TOOL_CLOSE,
  openBlock: openUseToolBlock,
  renderCall: renderUseToolXml,
  promptRules: [
    "To call a function, write a tool block in exactly this form:",
    "<use_tool>\n<name>function_name</name>\n<parameter_name>value</parameter_name>\n</use_tool>",
    '- One tag per parameter. For arrays and objects write JSON inside the tag, like ["a", "b"].',
  ],
};
