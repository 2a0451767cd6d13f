import type { ToolSpec } from "../model/tool-spec.js";
import type { BlockFormat } from "../parser/block-format.js";
import type { OutputMode } from "../turn/turn-settings.js";
import { CUSTOM_TOOL_RAW_FORMAT } from "./custom-tool-raw.js";
import { JSON_TOOL_CALL_FORMAT } from "./json-tool-call.js";
import { USE_TOOL_XML_FORMAT } from "./use-tool-xml.js";

export { JSON_TOOL_CALL_FORMAT } from "./json-tool-call.js";
export { USE_TOOL_XML_FORMAT } from "./use-tool-xml.js";
export { CUSTOM_TOOL_RAW_FORMAT };

/** Every format the parser reads, whichever one the model was taught (models fall back to others). */
export const BLOCK_FORMATS: ReadonlyArray<BlockFormat> = [JSON_TOOL_CALL_FORMAT, USE_TOOL_XML_FORMAT];

const TAUGHT: Readonly<Record<OutputMode, BlockFormat>> = {
  "openai-json": JSON_TOOL_CALL_FORMAT,
  "obsidian-xml": USE_TOOL_XML_FORMAT,
};

/** The format the model is taught (and earlier calls are rendered in) for an output mode. */
export const blockFormatFor = (mode: OutputMode): BlockFormat => TAUGHT[mode];

const WITH_CUSTOM_TOOLS: ReadonlyArray<BlockFormat> = [...BLOCK_FORMATS, CUSTOM_TOOL_RAW_FORMAT];

/** The formats a turn reads: the raw custom-tool block joins them when a custom tool is offered. */
export const blockFormatsFor = (tools: Iterable<ToolSpec>): ReadonlyArray<BlockFormat> => {
  for (const tool of tools) if (tool.custom === true) return WITH_CUSTOM_TOOLS;
  return BLOCK_FORMATS;
};

/** The format an earlier call is rendered back in: its custom tool's raw block, else the taught one. */
export const callFormatFor = (custom: boolean, taught: BlockFormat): BlockFormat =>
  custom ? CUSTOM_TOOL_RAW_FORMAT : taught;
