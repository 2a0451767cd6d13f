export type { SchemaCache, ToolArgumentsValidator } from "./arguments-validator.js";
export { createArgumentsValidator, createSchemaCache } from "./arguments-validator.js";
