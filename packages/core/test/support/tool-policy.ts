import type { ToolPolicy, ToolSpec } from "../../src/index.js";

/** A canonical policy over `tools`: auto choice, parallel calls, unless `extra` says otherwise. */
export const policyOf = (tools: ReadonlyArray<ToolSpec>, extra: Partial<ToolPolicy> = {}): ToolPolicy => ({
  tools,
  choice: { type: "auto" },
  parallel: true,
  parallelDefaulted: true,
  ...extra,
});
