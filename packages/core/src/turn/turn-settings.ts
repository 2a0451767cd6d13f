/** Output modes: `openai-json` (plain OpenAI shapes) or `obsidian-xml` (also echo `<use_tool>` text). */
export const OUTPUT_MODES = ["openai-json", "obsidian-xml"] as const;
export type OutputMode = (typeof OUTPUT_MODES)[number];

/** `burst`: stop when text follows the calls; `first`: stop after the first call. */
export const STOP_AFTER_TOOLS_MODES = ["burst", "first"] as const;
export type StopAfterToolsMode = (typeof STOP_AFTER_TOOLS_MODES)[number];

/**
 * How tools reach the model: `prompt` teaches the sentinel format and parses it back out of the
 * text; `native` hands them to the backend's own function calling; `auto` picks native when the
 * backend supports it (see `chooseToolMode`).
 */
export const TOOL_MODES = ["auto", "native", "prompt"] as const;
export type ToolMode = (typeof TOOL_MODES)[number];

/** Per-deployment turn policy, shared by every HTTP surface. */
export interface TurnSettings {
  readonly outputMode: OutputMode;
  readonly toolMode: ToolMode;
  /** After the last tool block of a burst, forward no more text and stop the backend turn. */
  readonly stopAfterTools: boolean;
  readonly stopAfterToolsMode: StopAfterToolsMode;
  /** Cap on calls per turn (0 = no cap); enforced even when stopAfterTools is off. */
  readonly toolBlockMax: number;
  /** Drop a block identical (name + arguments) to an earlier one in the same turn. */
  readonly toolBlockDedup: boolean;
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
  toolBlockDedup: true,
  correctiveRetries: 1,
  maxBlockBytes: 1024 * 1024,
  stopGraceMs: 250,
  requestTimeoutMs: 0,
  idleTimeoutMs: 0,
};

/** Header value (`x-proxy-output-mode`) first, then the configured default. */
export const resolveOutputMode = (header: string | null | undefined, fallback: OutputMode): OutputMode => {
  const v = header?.trim().toLowerCase();
  return OUTPUT_MODES.find((mode) => mode === v) ?? fallback;
};

/** Header value (`x-proxy-tool-mode`) first, then the configured default. */
export const resolveToolMode = (header: string | null | undefined, fallback: ToolMode): ToolMode => {
  const v = header?.trim().toLowerCase();
  return TOOL_MODES.find((mode) => mode === v) ?? fallback;
};
