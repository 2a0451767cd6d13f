import { resolveSurfaceDeps, type SurfaceDeps, type SurfaceDepsInput } from "@proxy/http-surface";
import { createIssuedItems, type IssuedItems } from "./response/issued-items.js";
import { resolveState, type StoredState, type StoredStateOptions } from "./stored/state.js";

/** Everything the sub-app needs, injected by the composition root (no globals). */
export interface ResponsesAppDeps extends SurfaceDepsInput {
  /** Budget (JSON chars) of recently issued output items kept for `item_reference` inputs; 0 disables. */
  readonly issuedItemsBudget?: number | undefined;
  /** Stored responses, conversations and background mode; absent = stateless (those answer 400/404). */
  readonly stored?: StoredStateOptions | undefined;
}

export interface ResolvedDeps extends SurfaceDeps {
  readonly issued: IssuedItems;
  readonly state?: StoredState | undefined;
}

export const resolveDeps = (deps: ResponsesAppDeps): ResolvedDeps => ({
  ...resolveSurfaceDeps(deps),
  issued: createIssuedItems(deps.issuedItemsBudget),
  ...(deps.stored === undefined ? {} : { state: resolveState(deps.stored) }),
});
