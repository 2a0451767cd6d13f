import type { Clock, IdGenerator, TextBackend, TurnObserver, TurnSettings } from "@proxy/core";
import { createRandomIdGenerator, DEFAULT_TURN_SETTINGS, systemClock } from "@proxy/core";

/** Everything the sub-app needs, injected by the composition root (no globals). */
export interface ResponsesAppDeps {
  readonly backend: TextBackend;
  readonly ids?: IdGenerator | undefined;
  readonly clock?: Clock | undefined;
  readonly settings?: Partial<TurnSettings> | undefined;
  /** Called exactly once per request when its response ends (logs/metrics). */
  readonly observer?: TurnObserver | undefined;
}

export interface ResolvedDeps {
  readonly backend: TextBackend;
  readonly ids: IdGenerator;
  readonly clock: Clock;
  readonly settings: TurnSettings;
  readonly observer?: TurnObserver | undefined;
}

export const resolveDeps = (deps: ResponsesAppDeps): ResolvedDeps => ({
  backend: deps.backend,
  ids: deps.ids ?? createRandomIdGenerator(),
  clock: deps.clock ?? systemClock,
  settings: { ...DEFAULT_TURN_SETTINGS, ...deps.settings },
  observer: deps.observer,
});
