export {
  BLOCK_FORMATS,
  blockFormatFor,
  blockFormatsFor,
  CUSTOM_TOOL_RAW_FORMAT,
  callFormatFor,
  JSON_TOOL_CALL_FORMAT,
  USE_TOOL_XML_FORMAT,
} from "../formats/index.js";
export type * from "./block-format.js";
export type * from "./parser-types.js";
export {
  createSentinelParser,
  DEFAULT_MAX_BLOCK_BYTES,
  type SentinelParserOptions,
} from "./sentinel-parser.js";
