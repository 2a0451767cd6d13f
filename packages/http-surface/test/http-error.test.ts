import { GatewayError } from "@proxy/core";
import { describe, expect, it } from "vitest";
import { checkJsonValue, decodeJsonText, toHttpError } from "../src/index.js";

describe("the one error map", () => {
  it("maps kinds to statuses and sets Retry-After (whole seconds) and WWW-Authenticate once", () => {
    const overloaded = toHttpError(new GatewayError("overloaded", "busy", { retryAfterSeconds: 2.2 }));
    expect(overloaded).toMatchObject({ status: 429, headers: { "Retry-After": "3" } });
    const unauthorized = toHttpError(new GatewayError("unauthorized", "no key"));
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers["WWW-Authenticate"]).toBe('Bearer realm="proxy"');
    expect(toHttpError(new GatewayError("request_too_large", "big")).status).toBe(413);
    expect(toHttpError(new Error("boom"))).toMatchObject({
      status: 502,
      body: { error: { message: "boom", type: "server_error", param: null, code: "backend_error" } },
    });
  });

  it("uses the surface's body shaper", () => {
    const shaped = toHttpError(new GatewayError("timeout", "slow"), (error, status) => ({
      error: { code: status, message: error.message, status: "DEADLINE_EXCEEDED" },
    }));
    expect(shaped).toEqual({
      status: 504,
      headers: {},
      body: { error: { code: 504, message: "slow", status: "DEADLINE_EXCEEDED" } },
    });
  });
});

describe("JSON body checks", () => {
  it("one invalid-JSON error", () => {
    expect(() => decodeJsonText("{")).toThrow(expect.objectContaining({ code: "invalid_json", param: null }));
  });

  it("checks a million-level body without recursion", () => {
    const deep = `${"[".repeat(1_000_000)}${"]".repeat(1_000_000)}`;
    expect(() => decodeJsonText(deep)).toThrow(expect.objectContaining({ code: "nesting_too_deep" }));
  });

  it("names a lone surrogate in a key", () => {
    expect(() => checkJsonValue({ a: { "k\ud800": 1 } })).toThrow(
      expect.objectContaining({ code: "invalid_unicode", param: "a.k\ufffd" }),
    );
  });
});
