import type { Caller } from "@proxy/core/gateway";
import { Hono } from "hono";
import { describe, expect, expectTypeOf, it } from "vitest";
import { callerOwner, hostRequestId, type RunningTurn, requestCaller, requestTurn } from "../src/index.js";

describe("request-scoped facts are typed on the Hono context", () => {
  it("the host sets the caller and the request id by name, without casts, and the kit reads them back", async () => {
    const app = new Hono();
    app.use("*", async (c, next) => {
      c.set("requestId", "req-1");
      c.set("caller", { owner: "digest", name: "alice" });
      await next();
    });
    app.get("/", (c) => {
      expectTypeOf(c.get("caller")).toEqualTypeOf<Caller | undefined>();
      expectTypeOf(c.get("requestId")).toEqualTypeOf<string>();
      return c.json({
        owner: callerOwner(c),
        caller: requestCaller(c),
        requestId: hostRequestId(c),
        turn: requestTurn(c) ?? null,
      });
    });
    expect(await (await app.request("/")).json()).toEqual({
      owner: "digest",
      caller: { owner: "digest", name: "alice" },
      requestId: "req-1",
      turn: null,
    });
  });

  it("nothing set: no caller (owner ''), no host request id, no turn", async () => {
    const app = new Hono();
    app.get("/", (c) =>
      c.json({
        owner: callerOwner(c),
        caller: requestCaller(c) ?? null,
        requestId: hostRequestId(c) ?? null,
      }),
    );
    expect(await (await app.request("/")).json()).toEqual({ owner: "", caller: null, requestId: null });
  });

  it("the running turn is read through the typed variable", () => {
    expectTypeOf(requestTurn).returns.toEqualTypeOf<RunningTurn | undefined>();
  });
});
