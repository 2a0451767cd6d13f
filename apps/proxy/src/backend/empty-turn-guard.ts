import { type BackendMiddleware, GatewayError } from "@proxy/core";

/** Refuses a turn that gives the model nothing to answer (no input, no history) before any backend runs. */
export const emptyTurnGuard: BackendMiddleware = {
  stream(request, options, next) {
    if (request.input.length === 0 && request.history.length === 0)
      throw new GatewayError("invalid_request", "The request has nothing for the model to answer.", {
        param: "messages",
      });
    return next(request, options);
  },
};
