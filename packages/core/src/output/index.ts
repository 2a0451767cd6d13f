export * from "./output-guard.js";
export * from "./output-token-budget.js";
export * from "./stop-sequences.js";
