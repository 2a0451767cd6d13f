import { chatSurface } from "@proxy/adapter-http-chat";
import { geminiSurface } from "@proxy/adapter-http-gemini";
import { messagesSurface } from "@proxy/adapter-http-messages";
import { responsesSurface, type StoredStateOptions } from "@proxy/adapter-http-responses";
import type { HttpSurface, SurfaceDepsInput } from "@proxy/http-surface";

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
