export { createEchoApp, ECHO_ROUTES, ECHO_SURFACE } from "./app.js";
export { echoSurface } from "./surface.js";
