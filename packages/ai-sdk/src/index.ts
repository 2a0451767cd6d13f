export { toolCallingMiddleware } from "./middleware.js";
export type { ToolCallingOptions } from "./options.js";
