export type { ToolArgumentsValidator } from "./arguments-validator.js";
export { createArgumentsValidator } from "./arguments-validator.js";
