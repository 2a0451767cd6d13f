import type { Context } from "hono";
import type { SurfaceDeps } from "../surface/deps.js";
import type { SurfaceProfile } from "../surface/profile.js";
import type { StreamAnswer, StreamEncoder, TurnFolder } from "./drive.js";
import type { TurnSession, TurnStart } from "./session.js";

/** One request of a surface's turn route, as its codec sees it (one object per request). */
export interface TurnExchange<Deps extends SurfaceDeps = SurfaceDeps> {
  readonly c: Context;
  readonly deps: Deps;
  /** The request's session: its settings, signal, error answer and report. */
  readonly session: TurnSession;
}

/**
 * A surface's turn route as one value: what the kit's one handler (`turnRoute`) needs to serve it.
 * The handler opens the session, reads the JSON body, `decode`s it, starts the turn and, once the
 * backend accepted it, answers with `stream` (the plan asked for a stream) or `fold` (one body).
 * Everything but the wire shapes (refusals, keep-alives, stalls, the abort, the one report) is the
 * kit's.
 */
export interface TurnCodec<Plan extends TurnStart = TurnStart, Deps extends SurfaceDeps = SurfaceDeps> {
  readonly profile: SurfaceProfile;
  /**
   * The request body (parsed and checked JSON) → the turn to run; a failure (thrown) is answered in
   * the surface's shape before any backend turn.
   */
  decode(body: unknown, exchange: TurnExchange<Deps>): Plan | Promise<Plan>;
  /**
   * The frames of a streamed answer, built once the backend accepted the turn; absent for a route
   * that never streams (its plans say `stream: false`).
   */
  readonly stream?: ((plan: Plan, exchange: TurnExchange<Deps>) => StreamEncoder | StreamAnswer) | undefined;
  /** The one JSON body of an answer that is not streamed, folded from the same events. */
  fold(plan: Plan, exchange: TurnExchange<Deps>): TurnFolder;
  /**
   * The one hook before the shared turn: a decoded request the surface answers itself, detached
   * from this request's turn (Responses' `background: true`); undefined = the shared turn runs.
   */
  readonly detach?: ((plan: Plan, exchange: TurnExchange<Deps>) => Promise<Response> | undefined) | undefined;
}
