import type { Clock, IdGenerator, SchemaCache, TextBackend, TurnObserver, TurnSettings } from "@proxy/core";
import { createRandomIdGenerator, createSchemaCache, DEFAULT_TURN_SETTINGS, systemClock } from "@proxy/core";
import { createIssuedItems, type IssuedItems } from "../response/issued-items.js";
import { resolveState, type StoredState, type StoredStateOptions } from "../stored/state.js";

/** Everything the sub-app needs, injected by the composition root (no globals). */
export interface ResponsesAppDeps {
  readonly backend: TextBackend;
  readonly ids?: IdGenerator | undefined;
  readonly clock?: Clock | undefined;
  readonly settings?: Partial<TurnSettings> | undefined;
  /** Called exactly once per request when its response ends (logs/metrics). */
  readonly observer?: TurnObserver | undefined;
  /** Budget (JSON chars) of recently issued output items kept for `item_reference` inputs; 0 disables. */
  readonly issuedItemsBudget?: number | undefined;
  /** Stored responses, conversations and background mode; absent = stateless (those answer 400/404). */
  readonly stored?: StoredStateOptions | undefined;
}

export interface ResolvedDeps {
  readonly backend: TextBackend;
  readonly ids: IdGenerator;
  readonly clock: Clock;
  readonly settings: TurnSettings;
  readonly observer?: TurnObserver | undefined;
  readonly issued: IssuedItems;
  /** Tool schemas compiled once per app (clients resend the same tools every turn). */
  readonly schemas: SchemaCache;
  readonly state?: StoredState | undefined;
}

export const resolveDeps = (deps: ResponsesAppDeps): ResolvedDeps => ({
  backend: deps.backend,
  ids: deps.ids ?? createRandomIdGenerator(),
  clock: deps.clock ?? systemClock,
  settings: { ...DEFAULT_TURN_SETTINGS, ...deps.settings },
  observer: deps.observer,
  issued: createIssuedItems(deps.issuedItemsBudget),
  schemas: createSchemaCache(),
  ...(deps.stored === undefined ? {} : { state: resolveState(deps.stored) }),
});
