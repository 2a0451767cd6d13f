import { type HttpSurface, mountRoutes, OPENAI_FRONT } from "@proxy/http-surface";
import { createEchoApp, ECHO_ROUTES, ECHO_SURFACE } from "./app.js";

/** The echo surface (`/echo/v1/complete`) as one module: OpenAI's key and error shape. */
export const echoSurface: HttpSurface = {
  ...OPENAI_FRONT,
  api: ECHO_SURFACE.api,
  routes: mountRoutes("/echo/v1", ECHO_ROUTES),
  owns: (c) => c.req.path.startsWith("/echo/"),
  mount: (app, deps) => app.route("/echo/v1", createEchoApp(deps)),
};
