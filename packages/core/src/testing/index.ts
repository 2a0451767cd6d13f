export * from "./backend-contract.js";
export * from "./conversation-owners-contract.js";
export * from "./o200k-encoding.js";
export * from "./response-store-contract.js";
export * from "./scripted-backend.js";
export * from "./scripted-contract.js";
export * from "./usage-store-contract.js";
