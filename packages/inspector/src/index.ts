export { createInspector, type Inspector, type InspectorOptions } from "./inspector.js";
export { INSPECTOR_PATH } from "./inspector-routes.js";
export type { InspectorBackend, InspectorKeys, InspectorRouteSpec, InspectorRouteStatus } from "./ports.js";
export { findUiDir } from "./static-files.js";
