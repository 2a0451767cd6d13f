import type { ToolSpec } from "../model/tool-spec.js";
import type { BlockFormat } from "../parser/block-format.js";
import type { OutputMode } from "../turn/turn-settings.js";
import { CUSTOM_TOOL_RAW_FORMAT } from "./custom-tool-raw.js";
import { JSON_TOOL_CALL_FORMAT } from "./json-tool-call.js";
import { USE_TOOL_XML_FORMAT } from "./use-tool-xml.js";

export { JSON_TOOL_CALL_FORMAT, type JsonBlockFormatOptions, jsonBlockFormat } from "./json-tool-call.js";
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

const related = (a: string, b: string): boolean => a.startsWith(b) || b.startsWith(a);

/**
 * The formats a parser reads when `taught` is taught: it first, then the registry's formats whose
 * opening tag is not a prefix of its own or the other way round (one tag would hide the other).
 */
export const blockFormatsReading = (taught: BlockFormat): ReadonlyArray<BlockFormat> => [
  taught,
  ...BLOCK_FORMATS.filter((f) => f !== taught && !related(f.open, taught.open)),
];

/** Why a parser cannot read these formats together (two opening tags, one a prefix of the other), if so. */
export const formatsProblem = (formats: ReadonlyArray<BlockFormat>): string | undefined => {
  for (let a = 0; a < formats.length; a += 1)
    for (let b = a + 1; b < formats.length; b += 1) {
      const x = (formats[a] as BlockFormat).open;
      const y = (formats[b] as BlockFormat).open;
      if (related(x, y))
        return `formats: the opening tags ${JSON.stringify(x)} and ${JSON.stringify(y)} cannot be told apart (one is a prefix of the other)`;
    }
  return undefined;
};
