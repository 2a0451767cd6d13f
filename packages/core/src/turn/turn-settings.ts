/** Output modes: `openai-json` (plain OpenAI shapes) or `obsidian-xml` (also echo `<use_tool>` text). */
export type OutputMode = "openai-json" | "obsidian-xml";

export const OUTPUT_MODES: ReadonlyArray<OutputMode> = ["openai-json", "obsidian-xml"];

/**
 * How tools reach the model: `prompt` teaches the sentinel format and parses it back out of the
 * text; `native` hands them to the backend's own function calling; `auto` picks native when the
 * backend supports it (see `chooseToolMode`).
 */
export type ToolMode = "auto" | "native" | "prompt";

export const TOOL_MODES: ReadonlyArray<ToolMode> = ["auto", "native", "prompt"];

/** Per-deployment turn policy, shared by every HTTP surface. */
export interface TurnSettings {
  readonly outputMode: OutputMode;
  readonly toolMode: ToolMode;
  /** After the last tool block of a burst, forward no more text and stop the backend turn. */
  readonly stopAfterTools: boolean;
  /** `burst`: stop when text follows the calls; `first`: stop after the first call. */
  readonly stopAfterToolsMode: "burst" | "first";
  /** Cap on calls per turn (0 = no cap); enforced even when stopAfterTools is off. */
  readonly toolBlockMax: number;
  /** Drop a block identical (name + arguments) to an earlier one in the same turn. */
  readonly dedupToolBlocks: boolean;
  /** Corrective backend turns for strict / tool_choice violations before failing. */
  readonly correctiveRetries: number;
  /** Max bytes of one open sentinel block. */
  readonly maxBlockBytes: number;
  /** How long to wait for the backend's usage after stopping it early. */
  readonly stopGraceMs: number;
  /** Whole-turn deadline in ms (0 = none); on expiry the backend turn is stopped. */
  readonly requestTimeoutMs: number;
  /** Max silence between backend events in ms (0 = none). */
  readonly idleTimeoutMs: number;
}

export const DEFAULT_TURN_SETTINGS: TurnSettings = {
  outputMode: "openai-json",
  toolMode: "auto",
  stopAfterTools: true,
  stopAfterToolsMode: "burst",
  toolBlockMax: 0,
  dedupToolBlocks: true,
  correctiveRetries: 1,
  maxBlockBytes: 1024 * 1024,
  stopGraceMs: 250,
  requestTimeoutMs: 0,
  idleTimeoutMs: 0,
};

/** Header value (`x-proxy-output-mode`) first, then the configured default. */
export const resolveOutputMode = (header: string | null | undefined, fallback: OutputMode): OutputMode => {
  const v = header?.trim().toLowerCase();
  return v === "openai-json" || v === "obsidian-xml" ? v : fallback;
};

/** Header value (`x-proxy-tool-mode`) first, then the configured default. */
export const resolveToolMode = (header: string | null | undefined, fallback: ToolMode): ToolMode => {
  const v = header?.trim().toLowerCase();
  return v === "auto" || v === "native" || v === "prompt" ? v : fallback;
};
