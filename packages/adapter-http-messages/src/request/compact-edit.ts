import { invalidRequest } from "@proxy/core";
import type { CompactFirst } from "@proxy/core/gateway";
import type { MessagesRequest } from "./request-schema.js";

/** Anthropic's compaction edit and its defaults (its documented bounds: at least 50 000 tokens). */
export const COMPACT_EDIT = "compact_20260112";
export const DEFAULT_TRIGGER_TOKENS = 150_000;
export const MIN_TRIGGER_TOKENS = 50_000;

const invalid = (at: string, message: string) => invalidRequest(`Invalid value for '${at}': ${message}`, at);

/** A non-empty prompt replaces the summary prompt; empty or blank counts as absent (as Anthropic's). */
const instructionsAt = (value: unknown, at: string): string | undefined => {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw invalid(at, "expected a string or null.");
  return value.trim() === "" ? undefined : value;
};

const triggerAt = (value: unknown, at: string): number => {
  if (value === undefined || value === null) return DEFAULT_TRIGGER_TOKENS;
  const trigger = value as { type?: unknown; value?: unknown };
  if (typeof value !== "object" || Array.isArray(value)) throw invalid(at, "expected an object.");
  if (trigger.type !== "input_tokens") throw invalid(`${at}.type`, "expected 'input_tokens'.");
  const tokens = trigger.value;
  if (typeof tokens !== "number" || !Number.isInteger(tokens) || tokens < MIN_TRIGGER_TOKENS)
    throw invalid(`${at}.value`, `expected an integer of at least ${MIN_TRIGGER_TOKENS}.`);
  return tokens;
};

/**
 * What the request asks to compact: the `compact_20260112` edit of `context_management` (compact
 * once the prompt reaches its trigger, then answer unless `pause_after_compaction`), or the
 * on-demand `compaction` parameter (compact now, answer nothing). Other edits
 * (`clear_thinking_20251015`, `clear_tool_uses_20250919`, …) are accepted and not applied: echoed
 * thinking never reaches the backend anyway, and tool results are shown as sent.
 */
export const compactFirstOf = (body: MessagesRequest): CompactFirst | undefined => {
  const edits = body.context_management?.edits ?? [];
  const found = edits.flatMap((edit, i) => (edit.type === COMPACT_EDIT ? [{ edit, i }] : []));
  if (body.compaction !== undefined && body.compaction !== null) {
    if (body.context_management !== undefined && body.context_management !== null)
      throw invalid("compaction", "cannot be combined with 'context_management'.");
    return {
      triggerTokens: 0,
      pause: true,
      instructions: instructionsAt(body.compaction.instructions, "compaction.instructions"),
    };
  }
  if (found.length === 0) return undefined;
  if (found.length > 1)
    throw invalid(
      `context_management.edits[${found[1]?.i}]`,
      `at most one '${COMPACT_EDIT}' edit is allowed.`,
    );
  const { edit, i } = found[0] as (typeof found)[number];
  const at = `context_management.edits[${i}]`;
  const pause = edit.pause_after_compaction;
  if (pause !== undefined && pause !== null && typeof pause !== "boolean")
    throw invalid(`${at}.pause_after_compaction`, "expected a boolean.");
  return {
    triggerTokens: triggerAt(edit.trigger, `${at}.trigger`),
    pause: pause === true,
    instructions: instructionsAt(edit.instructions, `${at}.instructions`),
  };
};
