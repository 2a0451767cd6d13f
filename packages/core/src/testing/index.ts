export * from "./backend-contract.js";
export * from "./response-store-contract.js";
export * from "./scripted-backend.js";
export * from "./usage-store-contract.js";
