import { GatewayError, invalidRequest } from "@proxy/core";
import { isTerminalStatus, type StoredResponse } from "@proxy/core/gateway";
import { callerOwner, errorResponse } from "@proxy/http-surface";
import type { Context, Hono } from "hono";
import { streamSSE } from "hono/streaming";
import type { ResolvedDeps } from "../deps.js";
import { listBody, pageQueryOf } from "./paging.js";
import { replayStoredEvents, sseFrames } from "./replay.js";
import type { StoredState } from "./state.js";

const notFound = (id: string) =>
  new GatewayError("not_found", `No response found with id '${id}'.`, {
    param: "response_id",
    code: "not_found",
  });

const notStored = (id: string): GatewayError =>
  new GatewayError("not_found", `No response found with id '${id}': this gateway does not store responses.`, {
    param: "response_id",
    code: "not_found",
  });

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** How long `cancel` waits for the turn (here or on another replica) to record its end. */
const CANCEL_WAIT_MS = 10_000;

const found = async (state: StoredState, c: Context): Promise<StoredResponse> => {
  const id = c.req.param("id") ?? "";
  const response = await state.store.getResponse(callerOwner(c), id);
  if (response === undefined) throw notFound(id);
  return response;
};

const startingAfter = (c: Context): number => {
  const raw = c.req.query("starting_after");
  if (raw === undefined) return -1;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < -1)
    throw invalidRequest(
      `Invalid 'starting_after': expected a sequence number, got '${raw}'.`,
      "starting_after",
    );
  return n;
};

const cancelResponse = async (c: Context, state: StoredState): Promise<Response> => {
  const response = await found(state, c);
  if (!response.background)
    throw invalidRequest("Only background responses can be cancelled.", "response_id", "invalid_request");
  if (isTerminalStatus(response.status)) return c.json(response.body as object);
  const owner = callerOwner(c);
  await state.store.requestCancel(owner, response.id);
  const local = state.running.get(response.id);
  if (local !== undefined) {
    local.cancel();
    await local.done;
  } else {
    // Another replica runs it: it sees the request at its next lease renewal.
    const deadline = Date.now() + CANCEL_WAIT_MS;
    while (Date.now() < deadline) {
      const current = await state.store.getResponse(owner, response.id);
      if (current === undefined || isTerminalStatus(current.status)) break;
      await sleep(state.pollMs);
    }
  }
  return c.json(((await state.store.getResponse(owner, response.id)) ?? response).body as object);
};

/** `GET`/`DELETE /responses/{id}`, `GET /responses/{id}/input_items`, `POST /responses/{id}/cancel`. */
export const mountResponseRoutes = (app: Hono, deps: ResolvedDeps): void => {
  const state = deps.state;
  if (state === undefined) {
    // Stateless gateway: nothing is stored, so every id is unknown.
    for (const [method, path] of [
      ["get", "/responses/:id"],
      ["delete", "/responses/:id"],
      ["get", "/responses/:id/input_items"],
      ["post", "/responses/:id/cancel"],
    ] as const)
      app[method](path, (c) => errorResponse(c, notStored(c.req.param("id"))));
    return;
  }
  app.get("/responses/:id", async (c) => {
    const response = await found(state, c);
    if (c.req.query("stream") !== "true") return c.json(response.body as object);
    const after = startingAfter(c);
    return streamSSE(c, async (sse) => {
      const local = state.running.get(response.id);
      const events =
        local !== undefined
          ? local.log.follow(after)
          : replayStoredEvents(state, callerOwner(c), response.id, after);
      for await (const batch of events) {
        if (sse.aborted) return;
        await sse.write(sseFrames(batch));
      }
      await local?.done;
    });
  });
  app.delete("/responses/:id", async (c) => {
    const id = c.req.param("id");
    const running = state.running.get(id);
    if (!(await state.store.deleteResponse(callerOwner(c), id))) throw notFound(id);
    running?.cancel();
    return c.json({ id, object: "response", deleted: true });
  });
  app.get("/responses/:id/input_items", async (c) => {
    const id = c.req.param("id");
    const page = await state.store.listInputItems(callerOwner(c), id, pageQueryOf(c));
    if (page === undefined) throw notFound(id);
    return c.json(listBody(page));
  });
  app.post("/responses/:id/cancel", (c) => cancelResponse(c, state));
};
