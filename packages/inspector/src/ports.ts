import type { BackendReadiness, Caller, TextBackend } from "@proxy/core/gateway";
import type { RouteSpec } from "@proxy/http-surface";

/** One model route's line on the overview (the route table's status). */
export interface InspectorRouteStatus extends BackendReadiness {
  readonly route: string;
}

/** The backend stack as the overview reads it: its name and readiness, its turns, its routes. */
export interface InspectorBackend extends Pick<TextBackend, "name" | "readiness"> {
  activeTurns(): number;
  /** Each model route's status; absent or undefined when the gateway serves no routes. */
  readonly routes?: (() => ReadonlyArray<InspectorRouteStatus> | undefined) | undefined;
}

/** The host's own key handling, used as it is (the inspector compares and names no key itself). */
export interface InspectorKeys {
  /** A check of a presented key against `keys` that timing does not give away (the host's key auth). */
  readonly matcher: (keys: ReadonlyArray<string>) => (presented: string) => boolean;
  /** The caller a key's requests are recorded as (its owner id, never the key). */
  readonly callerOf: (key: string) => Caller;
}

/** A route of the inspector's; `admin`: it takes the admin key, not an API key. */
export interface InspectorRouteSpec extends RouteSpec {
  readonly admin?: boolean | undefined;
}
