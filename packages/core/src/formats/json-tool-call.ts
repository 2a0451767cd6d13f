import type { BlockFormat } from "../parser/block-format.js";
import { renderToolCallBlock } from "../prompt/use-tool-xml.js";
import { openJsonBlock, TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from "./json-block.js";

/** `<tool_call>{"name": …, "arguments": …}</tool_call>`, the format taught by default. */
export const JSON_TOOL_CALL_FORMAT: BlockFormat = {
  id: "json",
  open: TOOL_CALL_OPEN,
  close: TOOL_CALL_CLOSE,
  openBlock: openJsonBlock,
  renderCall: renderToolCallBlock,
  promptRules: [
    "To call a function, write a tool-call block in exactly this form:",
    '<tool_call>{"name":"<function name>","arguments":"<the arguments object, JSON-encoded as a string>"}</tool_call>',
    '- Write "name" first, then "arguments": a JSON string whose content is a JSON object matching the schema.',
  ],
};
