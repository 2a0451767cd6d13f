import {
  type BlockFormat,
  DEFAULT_MAX_BLOCK_BYTES,
  type IdGenerator,
  JSON_TOOL_CALL_FORMAT,
} from "@proxy/core";
import { DEFAULT_TURN_SETTINGS, type TurnSettings } from "@proxy/core/gateway";

export interface ToolCallingOptions {
  /**
   * How the model is taught to write a call, and how earlier calls are written back into its
   * history (default `JSON_TOOL_CALL_FORMAT`, `<tool_call>{"name":…,"arguments":…}</tool_call>`).
   * Blocks in core's other formats are read too: models fall back to them.
   */
  readonly format?: BlockFormat | undefined;
  /** `false`: at most one call per step; the model is told so and later calls are dropped (default true). */
  readonly parallelToolCalls?: boolean | undefined;
  /** At most this many calls per step; later ones are dropped (default: no cap). */
  readonly maxToolCalls?: number | undefined;
  /**
   * Treat every tool as strict: a call whose arguments fail the tool's input schema is never
   * returned; the model is re-asked instead (default: each tool's own `strict`).
   */
  readonly strict?: boolean | undefined;
  /**
   * Corrective re-asks when a reply breaks the tool rules (a strict call with invalid arguments,
   * no call under `toolChoice` `required` or a named tool): the failed reply and what was wrong go
   * back to the model once per re-ask; past them the call fails (default 1; 0 fails at once).
   */
  readonly correctiveRetries?: number | undefined;
  /** Drop a call identical (name and arguments) to an earlier one in the same step (default true). */
  readonly dedupe?: boolean | undefined;
  /** Text the model writes after its calls is not passed on (default true). */
  readonly stopAfterTools?: boolean | undefined;
  /** Largest tool block, in bytes, before it is refused (default 1 MiB). */
  readonly maxBlockBytes?: number | undefined;
  /** Text put first in the system prompt, before the caller's own system messages (default none). */
  readonly instructions?: string | undefined;
  /** Tool call ids (default: random `call_…`). */
  readonly ids?: IdGenerator | undefined;
}

/** The options as core's turn settings (only the tool-policy ones matter here). */
export const turnSettingsOf = (options: ToolCallingOptions): TurnSettings => ({
  ...DEFAULT_TURN_SETTINGS,
  stopAfterTools: options.stopAfterTools ?? true,
  toolBlockDedup: options.dedupe ?? true,
  correctiveRetries: options.correctiveRetries ?? 1,
  maxBlockBytes: options.maxBlockBytes ?? DEFAULT_MAX_BLOCK_BYTES,
  toolBlockMax: 0,
});

export const formatOf = (options: ToolCallingOptions): BlockFormat => options.format ?? JSON_TOOL_CALL_FORMAT;

const isCount = (n: number | undefined, min: number): boolean =>
  n === undefined || (Number.isInteger(n) && n >= min);

/** Options that cannot work, refused when the middleware is made (naming the option). */
export const checkOptions = (options: ToolCallingOptions): void => {
  const bad = (name: string, rule: string) =>
    new TypeError(`toolCallingMiddleware: \`${name}\` must be ${rule}.`);
  if (!isCount(options.maxToolCalls, 1)) throw bad("maxToolCalls", "a whole number of at least 1");
  if (!isCount(options.correctiveRetries, 0)) throw bad("correctiveRetries", "a whole number of at least 0");
  if (!isCount(options.maxBlockBytes, 1)) throw bad("maxBlockBytes", "a whole number of at least 1");
};
