import type { ToolWarning, TurnTelemetry } from "@proxy/core/gateway";
import { clip } from "./clip.js";

/**
 * What a log line carries of strings a client (or the model it prompts) chose: each cut to a few
 * hundred characters, and lists to their first entries, so a request's line stays a line however
 * large its body or answer (a 4.5 MB model name was a 4.5 MB line, and a key filled the log disk
 * at the rate it could send bodies).
 */
export const LOG_TEXT_CHARS = 256;
const LOG_LIST_ITEMS = 32;
/** Tool names are at most 64 characters (the surfaces check them); call ids are short too. */
const LOG_NAME_CHARS = 64;

/** A client-chosen string as a log line carries it (undefined stays undefined). */
export const logText = (text: string | undefined, max = LOG_TEXT_CHARS): string | undefined =>
  text === undefined ? undefined : clip(text, max);

/** The first entries of a list, each cut, and how many more there were. */
export const logList = (list: ReadonlyArray<string>, max = LOG_NAME_CHARS): string[] => {
  const head = list.slice(0, LOG_LIST_ITEMS).map((item) => clip(item, max));
  if (list.length > LOG_LIST_ITEMS) head.push(`… (${list.length - LOG_LIST_ITEMS} more)`);
  return head;
};

/** Warnings of calls accepted with a caveat (at most 20 a turn), their names and details cut. */
export const logWarnings = (warnings: ReadonlyArray<ToolWarning>) =>
  warnings.slice(0, LOG_LIST_ITEMS).map((w) => ({
    tool: clip(w.tool, LOG_NAME_CHARS),
    kind: w.kind,
    ...(w.detail === undefined ? {} : { detail: clip(w.detail, LOG_TEXT_CHARS) }),
  }));

/** A turn's telemetry for its request's log line: its counts whole, its names and ids bounded. */
export const logTelemetry = (t: TurnTelemetry) => ({
  ...t,
  toolNames: logList(t.toolNames),
  callIds: logList(t.callIds),
  calledTools: logList(t.calledTools),
  toolWarnings: logWarnings(t.toolWarnings),
  backendTurnId: logText(t.backendTurnId, LOG_NAME_CHARS * 2),
  // Logged beside the turn as `failureAfterCalls` (its message, cut).
  failureAfterCalls: t.failureAfterCalls === undefined ? undefined : { kind: t.failureAfterCalls.kind },
});
