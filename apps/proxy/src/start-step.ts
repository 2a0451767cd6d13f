import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import { GatewayStartError } from "./startup-problem.js";

/**
 * One asynchronous start step as an Effect whose failure is a GatewayStartError saying what to fix
 * (`problem` words the cause; a step that already says so is kept as it is).
 */
export const startStep = <A>(
  start: () => Promise<A>,
  problem: (error: unknown) => string,
): Effect.Effect<A, GatewayStartError> =>
  Effect.tryPromise({
    try: start,
    catch: (error) =>
      error instanceof GatewayStartError ? error : new GatewayStartError(problem(error), { cause: error }),
  });

/**
 * A start step's whole cause as a GatewayStartError (a defect too: codex's acquisition throws).
 * An interruption stays one: it only means another step failed first.
 */
export const startCause = (
  cause: Cause.Cause<unknown>,
  problem: (error: unknown) => string,
): Cause.Cause<GatewayStartError> => {
  if (Cause.hasInterruptsOnly(cause)) return cause as Cause.Cause<never>;
  const error = Cause.squash(cause);
  return Cause.fail(
    error instanceof GatewayStartError ? error : new GatewayStartError(problem(error), { cause: error }),
  );
};
