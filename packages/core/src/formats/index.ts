import type { BlockFormat } from "../parser/block-format.js";
import type { OutputMode } from "../turn/turn-settings.js";
import { JSON_TOOL_CALL_FORMAT } from "./json-tool-call.js";
import { USE_TOOL_XML_FORMAT } from "./use-tool-xml.js";

export { CUSTOM_TOOL_RAW_FORMAT } from "./custom-tool-raw.js";
export { JSON_TOOL_CALL_FORMAT } from "./json-tool-call.js";
export { USE_TOOL_XML_FORMAT } from "./use-tool-xml.js";

/** Every format the parser reads, whichever one the model was taught (models fall back to others). */
export const BLOCK_FORMATS: ReadonlyArray<BlockFormat> = [JSON_TOOL_CALL_FORMAT, USE_TOOL_XML_FORMAT];

const TAUGHT: Readonly<Record<OutputMode, BlockFormat>> = {
  "openai-json": JSON_TOOL_CALL_FORMAT,
  "obsidian-xml": USE_TOOL_XML_FORMAT,
};

/** The format the model is taught (and earlier calls are rendered in) for an output mode. */
export const blockFormatFor = (mode: OutputMode): BlockFormat => TAUGHT[mode];
