export { argumentShapeProblem, MAX_ARGUMENT_DEPTH } from "./argument-shape.js";
export type { SchemaCache, ToolArgumentsValidator } from "./arguments-validator.js";
export { createArgumentsValidator, createSchemaCache } from "./arguments-validator.js";
