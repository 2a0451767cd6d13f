import type { ToolPolicy, ToolSpec } from "./tool-spec.js";

/**
 * The answers every part of a turn needs from its tool policy, derived here and nowhere else
 * (prompt, parser, gate and validator all ask these).
 */

/** The tools the model is told about: `tools`, narrowed by `allowed` when the client sent a list. */
export const offeredTools = (policy: ToolPolicy): ReadonlyArray<ToolSpec> => {
  const { allowed } = policy;
  return allowed === undefined ? policy.tools : policy.tools.filter((t) => allowed.includes(t.name));
};

/** The one function the model must call (`tool_choice` naming a function), if any. */
export const forcedName = (policy: ToolPolicy): string | undefined =>
  policy.choice.type === "tool" ? policy.choice.name : undefined;

/** The reply must contain at least one call. */
export const mustCall = (policy: ToolPolicy): boolean =>
  policy.choice.type === "required" || policy.choice.type === "tool";

/** The tools a call may name: the forced one alone, else every offered tool. */
export const callableTools = (policy: ToolPolicy): ReadonlyArray<ToolSpec> => {
  const forced = forcedName(policy);
  const offered = offeredTools(policy);
  return forced === undefined ? offered : offered.filter((t) => t.name === forced);
};
