import {
  type BackendBatch,
  backendBatches,
  batchedEvents,
  GatewayError,
  type PlanLimits,
  type TextBackend,
} from "@proxy/core";
import type { RouteStatus } from "../routing/route-table.js";

/**
 * Decorates the chosen backend with what only the deployment knows: model aliases, and a drain
 * for graceful shutdown (new turns are refused; turns still running at the deadline end with a
 * proper error event, which the HTTP adapters turn into a terminal SSE event).
 */
export interface GatewayBackend extends TextBackend {
  /** Refuse new turns, wait up to `graceMs` for running ones, then end the rest cleanly. */
  drain(graceMs: number): Promise<void>;
  activeTurns(): number;
  /** Each model route's readiness, when the gateway serves `models` routes. */
  routes?(): ReadonlyArray<RouteStatus>;
  /** The last known plan usage behind a route (codex), for its responses' headers. */
  planLimitsOf(route: string): PlanLimits | undefined;
}

/**
 * The backend model for a client's model name: its alias if one is configured. Without model
 * routes, Claude Code's own names (`claude-*`) are never passed on as a model slug: the empty name
 * makes the backend use its configured default model. With routes, the router decides (and answers
 * an unrouted name with 404 `model_not_found`).
 */
export const routeModel = (
  model: string,
  aliases: Readonly<Record<string, string>>,
  claudeOnDefault: boolean,
): string => aliases[model] ?? (claudeOnDefault && /^claude-/i.test(model) ? "" : model);

export const createGatewayBackend = (
  inner: TextBackend,
  aliases: Readonly<Record<string, string>> = {},
  /** Called once draining starts (the codex pool then stops restarting its processes). */
  onDrain?: () => void,
  /** No model routes: `claude-*` names run on the backend's default model (see routeModel). */
  claudeOnDefault = true,
): GatewayBackend => {
  const active = new Set<(error: GatewayError) => void>();
  let draining = false;
  const idle: Array<() => void> = [];
  const settle = () => {
    if (active.size === 0) for (const resolve of idle.splice(0)) resolve();
  };

  async function* guarded(
    request: Parameters<TextBackend["stream"]>[0],
    signal: AbortSignal,
  ): AsyncGenerator<BackendBatch> {
    if (draining)
      throw new GatewayError("backend_unavailable", "The gateway is shutting down.", {
        retryAfterSeconds: 5,
      });
    const controller = new AbortController();
    const forward = () => controller.abort();
    signal.addEventListener("abort", forward, { once: true });
    let stopWith: GatewayError | undefined;
    let ended = false;
    // Stopping aborts the inner turn; backends must then end promptly (the TextBackend contract),
    // so the hot path needs no per-event race.
    const stop = (error: GatewayError) => {
      stopWith = error;
      controller.abort();
    };
    active.add(stop);
    const routed = { ...request, model: routeModel(request.model, aliases, claudeOnDefault) };
    try {
      for await (const batch of backendBatches(inner, routed, { signal: controller.signal })) {
        if (stopWith) break;
        yield batch;
      }
      ended = stopWith === undefined;
      if (stopWith) yield [{ type: "error", error: stopWith }];
    } finally {
      signal.removeEventListener("abort", forward);
      active.delete(stop);
      // An inner turn that ended by itself needs no stop (an abort allocates a DOMException).
      if (!ended) controller.abort();
      settle();
    }
  }

  return {
    specificationVersion: "v1",
    name: inner.name,
    // A getter: a backend may learn at startup that it cannot do native tools after all.
    get capabilities() {
      return inner.capabilities;
    },
    capabilitiesFor: (model) => inner.capabilitiesFor?.(routeModel(model, aliases, claudeOnDefault)),
    stream: (request, { signal }) => batchedEvents(() => guarded(request, signal)),
    async listModels() {
      const models = await inner.listModels();
      const aliased = Object.entries(aliases).map(([id, target]) => ({
        id,
        description: `alias of ${target}`,
        ownedBy: "proxy",
      }));
      return [...models, ...aliased.filter((a) => !models.some((m) => m.id === a.id))];
    },
    readiness: () => {
      const r = inner.readiness();
      return draining ? { ...r, ready: false, detail: "draining" } : r;
    },
    activeTurns: () => active.size,
    ...("routes" in inner && typeof inner.routes === "function"
      ? { routes: (inner as { routes(): ReadonlyArray<RouteStatus> }).routes }
      : {}),
    // A routing table knows each route's; a single backend is the one route there is.
    planLimitsOf:
      "planLimitsOf" in inner && typeof inner.planLimitsOf === "function"
        ? (inner as { planLimitsOf(route: string): PlanLimits | undefined }).planLimitsOf
        : () => inner.readiness().planLimits,
    async drain(graceMs) {
      if (!draining) onDrain?.();
      draining = true;
      if (active.size > 0) {
        const timer = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref?.());
        await Promise.race([new Promise<void>((resolve) => idle.push(resolve)), timer]);
      }
      for (const stop of [...active])
        stop(new GatewayError("backend_unavailable", "The gateway shut down before the turn finished."));
    },
  };
};
