import type { BackendRequest } from "@proxy/core";
import { type BackendMiddleware, type PlanLimits, type TextBackend, wrapBackend } from "@proxy/core/gateway";
import type { RouteStatus } from "@proxy/routing";
import { createDrain } from "./drain.js";
import { hostedToolsSwitch } from "./hosted-tools.js";
import { modelAliases } from "./model-aliases.js";

/**
 * Every layer the gateway puts around a backend is one `BackendMiddleware` in the ordered list
 * below (outermost first, as vercel/ai's `wrapLanguageModel` takes them): the gateway's layers
 * around whatever it serves from. Each route's layers around its backend are the list in
 * `@proxy/routing` (`packages/routing/src/route-stack.ts`); with `models` routes the route table
 * sits between the two and only picks the route by name. Adding a layer is one file and one entry
 * in one of the two lists.
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
  /**
   * With replicas: what a turn another replica forwarded runs on, codex behind the drain only
   * (that replica's layers, its route's included, already ran; it is never forwarded again).
   */
  readonly forwarded?: TextBackend | undefined;
}

/** The codex backend's live conversations, as the replicas' layer reads them. */
export interface LiveConversations {
  /** The conversation keys a request may continue, oldest prefix first. */
  keysOf(request: BackendRequest): Promise<ReadonlyArray<string>>;
  /** Told when a key becomes continuable here and when it stops; returns the unsubscribe. */
  watch(listener: (key: string, live: boolean) => void): () => void;
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
  /** The codex backend beneath its route layers, when some route runs on codex (for replicas). */
  readonly codex?: CodexBeneathRoutes | undefined;
}

/**
 * What replicas sharing conversations need of codex where the route layers end: a turn is passed
 * to another replica only once its route made it what codex runs (its upstream model and default
 * effort applied), so both replicas derive one key from it.
 */
export interface CodexBeneathRoutes {
  readonly conversations: LiveConversations;
  /** What turns other replicas forward here run on: codex behind its login check, no route layers. */
  readonly turns: TextBackend;
  /** The same routes with `layer` innermost around codex, beneath every codex route's layers. */
  readonly beneathRoutes: (
    layer: BackendMiddleware,
  ) => Pick<AcquiredBackend, "backend" | "routes" | "planLimitsOf">;
}

export interface StackOptions {
  /** `PROXY_MODEL_ALIASES`. */
  readonly aliases?: Readonly<Record<string, string>> | undefined;
  /** `claude-*` names run on the backend's default model (default: when there is no route table). */
  readonly claudeOnDefault?: boolean | undefined;
  /** Per-key limits (`usage/key-limits.ts`), when some key has limits. */
  readonly keyLimits?: BackendMiddleware | undefined;
  /**
   * Replicas sharing conversations (`replicas/`): the forwarding layer, beneath the codex routes'
   * layers, and what the turns other replicas forward here run behind (`settle`: the turn's end
   * waits for its owner record).
   */
  readonly replicas?:
    | { readonly forwarding: BackendMiddleware; readonly settle: BackendMiddleware }
    | undefined;
  /** `PROXY_HOSTED_WEB_SEARCH` (default on): off refuses requests asking for the hosted search. */
  readonly hostedWebSearch?: boolean | undefined;
}

/**
 * The gateway's layers around the backend it serves from: hosted tools, limits, drain, aliases;
 * with replicas, their forwarding beneath the codex routes' layers.
 */
export const createBackendStack = (acquired: AcquiredBackend, options: StackOptions = {}): BackendStack => {
  const { replicas } = options;
  const codex = replicas ? acquired.codex : undefined;
  const served = replicas && codex ? codex.beneathRoutes(replicas.forwarding) : acquired;
  const inner = served.backend;
  const drain = createDrain(acquired.beginShutdown);
  const backend = wrapBackend(inner, [
    ...(options.hostedWebSearch === false ? [hostedToolsSwitch(false)] : []),
    ...(options.keyLimits ? [options.keyLimits] : []),
    drain.middleware,
    modelAliases(options.aliases ?? {}, options.claudeOnDefault ?? acquired.routes === undefined),
  ]);
  const routes = served.routes;
  return {
    backend,
    forwarded: replicas && codex && wrapBackend(codex.turns, [drain.middleware, replicas.settle]),
    control: {
      drain: drain.drain,
      activeTurns: drain.activeTurns,
      routes: () => routes?.(),
      planLimitsOf: served.planLimitsOf ?? (() => inner.readiness().planLimits),
    },
  };
};
