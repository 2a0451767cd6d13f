import type { Context } from "hono";
import { readJsonBody } from "../request/json-body.js";
import type { SurfaceDeps } from "../surface/deps.js";
import type { TurnCodec, TurnExchange } from "./codec.js";
import { foldTurn, streamTurn } from "./drive.js";
import { openTurnSession, type TurnStart } from "./session.js";

/**
 * The one handler of every surface's turn route: open the request's session, read and `decode`
 * its body (a failure is the surface's 400, reported once), start the turn, and answer a refusal
 * before the first byte with its HTTP status, else stream or fold the accepted turn with the
 * codec's encoders. Register it as the route's handler: `app.post(path, turnRoute(codec, deps))`.
 */
export const turnRoute =
  <Plan extends TurnStart, Deps extends SurfaceDeps>(codec: TurnCodec<Plan, Deps>, deps: Deps) =>
  async (c: Context): Promise<Response> => {
    const session = openTurnSession(c, deps, codec.profile);
    const exchange: TurnExchange<Deps> = { c, deps, session };
    let plan: Plan;
    try {
      plan = await codec.decode(await readJsonBody(c), exchange);
      const detached = codec.detach?.(plan, exchange);
      if (detached !== undefined) return await detached;
    } catch (e) {
      return session.fail(e);
    }
    const started = await session.start(plan);
    if (!started.accepted) return started.response;
    return plan.stream && codec.stream !== undefined
      ? streamTurn(session, started.batches, codec.stream(plan, exchange))
      : foldTurn(session, started.batches, codec.fold(plan, exchange));
  };
