import type { RequestTraceFor } from "@proxy/http-surface";
import type { Hono } from "hono";
import { createInspectorAuth } from "./inspector-auth.js";
import {
  INSPECTOR_PATH,
  inspectorRoutes,
  isInspectorPath,
  mountInspectorRoutes,
} from "./inspector-routes.js";
import type { InspectorBackend, InspectorKeys, InspectorRouteSpec } from "./ports.js";
import { createRequestRecording } from "./record-requests.js";
import { createRedactor } from "./redact.js";
import { createRequestLog } from "./request-log.js";
import { loadStaticFiles } from "./static-files.js";
import { createTrafficStats } from "./traffic-stats.js";

export interface InspectorOptions {
  readonly backend: InspectorBackend;
  /** The readiness detail that means the backend has no credentials, shown as such on the overview. */
  readonly notLoggedIn?: string | undefined;
  /** Who may open it (empty: anyone who reaches the gateway); redacted wherever it appears. */
  readonly adminKey: string;
  /** The API keys: redacted wherever they appear, and a request's key shown by its place in this list. */
  readonly apiKeys: ReadonlyArray<string>;
  /** How the host matches a presented key and names its caller. */
  readonly keys: InspectorKeys;
  /** The page's folder (`findUiDir`), read once at start-up. */
  readonly uiDir: string;
  /** Keep prompts, model text and arguments (off: timings, counts and decisions only). */
  readonly bodies: boolean;
  readonly maxRequests: number;
  readonly maxBytes: number;
  readonly pool: { readonly processes: number; readonly warmThreads: number };
  /** The gateway's (and codex's) version, for the overview. */
  readonly versions: { readonly gateway: string; readonly codex?: string | undefined };
}

/** The request inspector as create-app sees it: one mount and the surfaces' trace source. */
export interface Inspector {
  /** Records API requests and serves the page under /ui (after the browser guards). */
  mount(app: Hono): void;
  readonly traceFor: RequestTraceFor;
  /** Paths where the page's own same-origin form posts pass the browser guards' Origin check. */
  readonly sameOriginPrefixes: ReadonlyArray<string>;
  /** Its own paths: same-origin only, so no CORS middleware may answer for them. */
  readonly owns: (path: string) => boolean;
  /** Its routes, for the 405 answers and `/openapi.json`. */
  readonly routes: ReadonlyArray<InspectorRouteSpec>;
}

/** Everything the inspector holds lives in this instance, in memory, bounded by count and bytes. */
export const createInspector = (options: InspectorOptions): Inspector => {
  const limits = { maxRequests: options.maxRequests, maxBytes: options.maxBytes };
  const log = createRequestLog(limits);
  const stats = createTrafficStats();
  const redactor = createRedactor([...options.apiKeys, options.adminKey]);
  const recording = createRequestRecording({
    log,
    stats,
    bodies: options.bodies,
    redactor,
    apiKeys: options.apiKeys,
    keys: options.keys,
  });
  const auth = createInspectorAuth(options.adminKey, options.keys);
  const view = {
    log,
    stats,
    auth,
    files: loadStaticFiles(options.uiDir),
    backend: options.backend,
    notLoggedIn: options.notLoggedIn,
    bodies: options.bodies,
    redactor,
    limits,
    pool: options.pool,
    about: { version: options.versions.gateway, codexVersion: options.versions.codex, startedAt: Date.now() },
  };
  return {
    mount(app) {
      app.use("*", recording.middleware);
      mountInspectorRoutes(app, view);
    },
    traceFor: recording.traceFor,
    sameOriginPrefixes: [INSPECTOR_PATH],
    owns: isInspectorPath,
    routes: inspectorRoutes(auth.open),
  };
};
