import { GatewayError, isGatewayError } from "@proxy/core";
import type { BackendBatch, BackendEvent, PlanLimits, PlanWindow } from "@proxy/core/gateway";

/** Longest `Retry-After` the gateway asks for: a weekly window at most. */
const MAX_RETRY_AFTER_SECONDS = 7 * 24 * 60 * 60;

const finite = (u: unknown): number | undefined =>
  typeof u === "number" && Number.isFinite(u) ? u : undefined;

/** One window of `account/rateLimits/updated` (`{usedPercent, windowDurationMins, resetsAt}`), or null. */
const windowOf = (u: unknown): PlanWindow | undefined => {
  if (typeof u !== "object" || u === null) return undefined;
  const w = u as Record<string, unknown>;
  const usedPercent = finite(w.usedPercent);
  if (usedPercent === undefined) return undefined;
  return { usedPercent, windowMinutes: finite(w.windowDurationMins), resetsAt: finite(w.resetsAt) };
};

/** "2 h 13 min", "3 d 4 h", "under a minute": how long until a reset, for a person. */
export const formatDuration = (seconds: number): string => {
  const minutes = Math.ceil(seconds / 60);
  if (seconds < 60) return "under a minute";
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  if (days > 0) return hours > 0 ? `${days} d ${hours} h` : `${days} d`;
  if (hours > 0) return rest > 0 ? `${hours} h ${rest} min` : `${hours} h`;
  return `${rest} min`;
};

/** codex's `usageLimitExceeded`, as map-codex-error.ts words it. */
const isUsageLimit = (error: GatewayError): boolean =>
  error.kind === "rate_limited" && error.code === "insufficient_quota";

export interface PlanLimitsTracker {
  /** Feed every account notification of every app-server (they all share one login). */
  observe(method: string, params: Readonly<Record<string, unknown>>): void;
  /** The last known windows; a window whose reset time has passed is unknown again. */
  current(nowMs: number): PlanLimits | undefined;
  /**
   * codex's usage-limit error reworded: when the exhausted window resets as a duration (not
   * codex's "try again at 4:44 AM" in the host's clock) and `Retry-After` to match (≤ 7 days).
   */
  explain(error: GatewayError, nowMs: number): GatewayError;
  /** A turn's batches with its usage-limit error, thrown or as an event, explained. */
  explainTurn(turn: AsyncIterable<BackendBatch>, now: () => number): AsyncGenerator<BackendBatch>;
}

/**
 * The plan's usage as codex reports it: codex reads the model provider's `x-codex-primary-*` and
 * `x-codex-secondary-*` headers and sends `account/rateLimits/updated` near the end of each turn
 * (percent rounded to an integer). A response without the headers sends null windows: those keep
 * the last known values instead of erasing them.
 */
export const createPlanLimits = (): PlanLimitsTracker => {
  let primary: PlanWindow | undefined;
  let secondary: PlanWindow | undefined;

  const live = (w: PlanWindow | undefined, nowSeconds: number): PlanWindow | undefined =>
    w !== undefined && (w.resetsAt === undefined || w.resetsAt > nowSeconds) ? w : undefined;

  const explain = (error: GatewayError, nowMs: number): GatewayError => {
    if (!isUsageLimit(error)) return error;
    const nowSeconds = nowMs / 1000;
    // Every exhausted window must reset before a request can pass: the latest reset counts.
    const resets = [primary, secondary]
      .filter((w) => w !== undefined && w.usedPercent >= 100 && w.resetsAt !== undefined)
      .map((w) => (w?.resetsAt ?? 0) - nowSeconds)
      .filter((s) => s > 0);
    if (resets.length === 0)
      return new GatewayError("rate_limited", "usage limit reached; the reset time is unknown", {
        code: error.code,
        cause: error,
      });
    const seconds = Math.max(...resets);
    return new GatewayError("rate_limited", `usage limit reached; resets in ${formatDuration(seconds)}`, {
      code: error.code,
      retryAfterSeconds: Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, Math.ceil(seconds))),
      cause: error,
    });
  };

  const explainEvent = (event: BackendEvent, nowMs: number): BackendEvent =>
    event.type === "error" && isUsageLimit(event.error)
      ? { type: "error", error: explain(event.error, nowMs) }
      : event;

  return {
    observe(method, params) {
      if (method !== "account/rateLimits/updated") return;
      const limits = params.rateLimits as Record<string, unknown> | undefined;
      // Other limit families (a model's own limit) are not the plan's.
      if (
        limits === undefined ||
        (limits.limitId !== undefined && limits.limitId !== null && limits.limitId !== "codex")
      )
        return;
      primary = windowOf(limits.primary) ?? primary;
      secondary = windowOf(limits.secondary) ?? secondary;
    },
    current(nowMs) {
      const nowSeconds = nowMs / 1000;
      const p = live(primary, nowSeconds);
      const s = live(secondary, nowSeconds);
      if (p === undefined && s === undefined) return undefined;
      return { ...(p ? { primary: p } : {}), ...(s ? { secondary: s } : {}) };
    },
    explain,
    async *explainTurn(turn, now) {
      try {
        for await (const batch of turn) {
          // The error, if any, is a turn's last event: only that one is looked at.
          const last = batch[batch.length - 1];
          yield last?.type === "error" && isUsageLimit(last.error)
            ? [...batch.slice(0, -1), explainEvent(last, now())]
            : batch;
        }
      } catch (e) {
        throw isGatewayError(e) ? explain(e, now()) : e;
      }
    },
  };
};
