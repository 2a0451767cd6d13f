import { chatSurface } from "@proxy/adapter-http-chat";
import { geminiSurface } from "@proxy/adapter-http-gemini";
import { messagesSurface } from "@proxy/adapter-http-messages";
import { responsesSurface, type StoredStateOptions } from "@proxy/adapter-http-responses";
import type { HttpSurface, SurfaceDepsInput } from "@proxy/http-surface";
import type { Context } from "hono";

/** What the gateway hands every surface: the kit's dependencies and the store (absent: stateless). */
export interface GatewaySurfaceDeps extends SurfaceDepsInput {
  readonly stored?: StoredStateOptions | undefined;
}

/**
 * The API surfaces the gateway serves: the one list `createApp` mounts, guards and lists models by,
 * and the 405 answers and `/openapi.json` derive from. A new surface is one entry here.
 */
export const SURFACES: ReadonlyArray<HttpSurface<GatewaySurfaceDeps>> = [
  chatSurface,
  responsesSurface,
  messagesSurface,
  geminiSurface,
];

declare module "hono" {
  interface ContextVariableMap {
    /** The surface the request is for, once looked up (`null`: none, the gateway's own API). */
    surface: HttpSurface<GatewaySurfaceDeps> | null | undefined;
  }
}

/**
 * The surface a request is for, looked up once per request however many of the host's guards
 * ask (browser guards, key and body limit, the unknown-path hint).
 */
export const surfaceOf = (c: Context): HttpSurface<GatewaySurfaceDeps> | undefined => {
  let owner = c.get("surface");
  if (owner === undefined) {
    owner = SURFACES.find((s) => s.owns(c)) ?? null;
    c.set("surface", owner);
  }
  return owner ?? undefined;
};
