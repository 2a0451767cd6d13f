export * from "./backend-contract.js";
export * from "./scripted-backend.js";
