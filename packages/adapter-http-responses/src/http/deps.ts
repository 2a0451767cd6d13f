import { resolveSurfaceDeps, type SurfaceDeps, type SurfaceDepsInput } from "@proxy/http-surface";
import { createIssuedItems, type IssuedItems } from "../response/issued-items.js";

/** Everything the sub-app needs, injected by the composition root (no globals). */
export interface ResponsesAppDeps extends SurfaceDepsInput {
  /** Budget (JSON chars) of recently issued output items kept for `item_reference` inputs; 0 disables. */
  readonly issuedItemsBudget?: number | undefined;
}

export interface ResolvedDeps extends SurfaceDeps {
  readonly issued: IssuedItems;
}

export const resolveDeps = (deps: ResponsesAppDeps): ResolvedDeps => ({
  ...resolveSurfaceDeps(deps),
  issued: createIssuedItems(deps.issuedItemsBudget),
});
