import { type BackendMiddleware, type PlanLimits, type TextBackend, wrapBackend } from "@proxy/core";
import { answeringRoute } from "../routing/answering-route.js";
import { routeAdmission } from "../routing/route-admission.js";
import type { RouteStatus } from "../routing/route-table.js";
import { createDrain } from "./drain.js";
import { modelAliases } from "./model-aliases.js";

/**
 * Every layer the gateway puts around a backend is one `BackendMiddleware` in one of the two
 * ordered lists below (outermost first, as vercel/ai's `wrapLanguageModel` takes them): the
 * gateway's layers around whatever it serves from, and each route's layers around its backend.
 * The route table (`routing/route-table.ts`, with its fallbacks) sits between the two when
 * `models` routes are configured. Adding a layer is one file and one entry here.
 */

/** What the gateway's operators and status pages ask of the stack, beside its stream port. */
export interface BackendControl {
  /** Refuse new turns, wait up to `graceMs` for running ones, then end the rest cleanly. */
  drain(graceMs: number): Promise<void>;
  activeTurns(): number;
  /** Each model route's readiness; undefined when the gateway serves no `models` routes. */
  routes(): ReadonlyArray<RouteStatus> | undefined;
  /** The last known plan usage behind a route (codex), for its responses' headers. */
  planLimitsOf(route: string): PlanLimits | undefined;
}

/** The backend the surfaces stream from, and its control plane beside it. */
export interface BackendStack {
  readonly backend: TextBackend;
  readonly control: BackendControl;
}

/** A backend as the runtime acquired it, with what only the acquisition knows about it. */
export interface AcquiredBackend {
  readonly backend: TextBackend;
  /** Told once draining starts (the codex pool then stops restarting its processes). */
  readonly beginShutdown?: (() => void) | undefined;
  /** The route table's view of its routes, when the backend is one. */
  readonly routes?: (() => ReadonlyArray<RouteStatus>) | undefined;
  /** The plan usage behind a route; default: the one backend's (a single backend is the one route). */
  readonly planLimitsOf?: ((route: string) => PlanLimits | undefined) | undefined;
}

export interface StackOptions {
  /** `PROXY_MODEL_ALIASES`. */
  readonly aliases?: Readonly<Record<string, string>> | undefined;
  /** `claude-*` names run on the backend's default model (default: when there is no route table). */
  readonly claudeOnDefault?: boolean | undefined;
  /** Per-key limits (`usage/key-limits.ts`), when some key has limits. */
  readonly keyLimits?: BackendMiddleware | undefined;
}

/** The gateway's layers around the backend it serves from: limits, then drain, then aliases. */
export const createBackendStack = (acquired: AcquiredBackend, options: StackOptions = {}): BackendStack => {
  const inner = acquired.backend;
  const drain = createDrain(acquired.beginShutdown);
  const backend = wrapBackend(inner, [
    ...(options.keyLimits ? [options.keyLimits] : []),
    drain.middleware,
    modelAliases(options.aliases ?? {}, options.claudeOnDefault ?? acquired.routes === undefined),
  ]);
  const routes = acquired.routes;
  return {
    backend,
    control: {
      drain: drain.drain,
      activeTurns: drain.activeTurns,
      routes: () => routes?.(),
      planLimitsOf: acquired.planLimitsOf ?? (() => inner.readiness().planLimits),
    },
  };
};

/** What a route puts in front of its backend. */
export interface RouteLayers {
  readonly id: string;
  /** The route's own concurrency limit (`models[].maxInFlight`). */
  readonly admission?: { readonly maxInFlight: number; readonly maxQueue: number } | undefined;
  /** codex's login check (`backend/require-auth.ts`), shared by every codex route. */
  readonly auth?: BackendMiddleware | undefined;
}

/** One route's layers around its backend: its name on the turn, its admission, codex's login check. */
export const createRouteStack = (backend: TextBackend, route: RouteLayers): TextBackend =>
  wrapBackend(backend, [
    answeringRoute(route.id),
    ...(route.admission ? [routeAdmission({ route: route.id, ...route.admission })] : []),
    ...(route.auth ? [route.auth] : []),
  ]);
