export type * from "./parser-types.js";
export { createSentinelParser, DEFAULT_MAX_BLOCK_BYTES } from "./sentinel-parser.js";
