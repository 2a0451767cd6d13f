import { offeredTools } from "./tool-policy.js";
import { TOOL_NAME_PATTERN, type ToolPolicy } from "./tool-spec.js";

/**
 * What can be wrong with a canonical tool policy, whatever surface it came from. Each surface
 * words the problem in its own error shape and names its own `param` (it knows where tool `index`
 * sat in its request).
 */
export type ToolPolicyProblem =
  | { readonly kind: "invalid-name"; readonly index: number; readonly name: string }
  | { readonly kind: "duplicate-name"; readonly index: number; readonly name: string }
  | { readonly kind: "forced-tool-not-offered"; readonly name: string }
  | { readonly kind: "required-without-tools" };

/** The first problem of a policy (tools in order, then the choice), or undefined when it is sound. */
export const findToolPolicyProblem = (policy: ToolPolicy): ToolPolicyProblem | undefined => {
  const seen = new Set<string>();
  for (const [index, tool] of policy.tools.entries()) {
    if (!TOOL_NAME_PATTERN.test(tool.name)) return { kind: "invalid-name", index, name: tool.name };
    if (seen.has(tool.name)) return { kind: "duplicate-name", index, name: tool.name };
    seen.add(tool.name);
  }
  const { choice } = policy;
  const offered = offeredTools(policy);
  if (choice.type === "tool" && !offered.some((t) => t.name === choice.name))
    return { kind: "forced-tool-not-offered", name: choice.name };
  if (choice.type === "required" && offered.length === 0) return { kind: "required-without-tools" };
  return undefined;
};
