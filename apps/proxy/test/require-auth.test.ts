import { wrapBackend } from "@proxy/core/gateway";
import { createScriptedBackend } from "@proxy/core/testing";
import { describe, expect, it } from "vitest";
import { requireBackendAuth } from "../src/backend/require-auth.js";

const drain = async (iterable: AsyncIterable<{ type: string }>) => {
  const types: string[] = [];
  for await (const e of iterable) types.push(e.type);
  return types;
};
const request = { model: "m", instructions: "", history: [], input: [{ type: "text" as const, text: "hi" }] };
const signal = new AbortController().signal;

describe("requireBackendAuth", () => {
  it("refuses turns while logged out and picks up a login on the next re-check", async () => {
    let clock = 0;
    let loggedIn = false;
    const check = async () => ({ authenticated: loggedIn, requiresOpenaiAuth: true, detail: "" });
    const backend = wrapBackend(
      createScriptedBackend([{ chunks: ["ok"] }]),
      requireBackendAuth(check, await check(), { recheckMs: 1000, now: () => clock }),
    );
    await expect(drain(backend.stream(request, { signal }))).rejects.toMatchObject({ kind: "backend_auth" });
    loggedIn = true;
    await expect(drain(backend.stream(request, { signal }))).rejects.toMatchObject({ kind: "backend_auth" });
    clock = 1000;
    expect(await drain(backend.stream(request, { signal }))).toContain("text-delta");
  });

  it("says the fix once, promises no retry, and reports not ready (re-checking) until codex is logged in", async () => {
    let clock = 0;
    let loggedIn = false;
    let checks = 0;
    const check = async () => {
      checks++;
      return { authenticated: loggedIn, requiresOpenaiAuth: true, detail: "codex is not logged in" };
    };
    const inner = createScriptedBackend([{ chunks: ["ok"] }]);
    const backend = wrapBackend(
      inner,
      requireBackendAuth(check, await check(), { recheckMs: 1000, now: () => clock }),
    );
    const error = await drain(backend.stream(request, { signal })).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "backend_auth", code: "backend_auth", retryAfterSeconds: undefined });
    const { message } = error as Error;
    expect(message.match(/codex login/g)).toHaveLength(2); // once per install: packed, checkout
    expect(message).toContain("`npx codex login` in the gateway's install directory");
    expect(message).toContain("`apps/proxy/node_modules/.bin/codex login` in a checkout");
    expect(backend.readiness()).toMatchObject({ ready: false, detail: message });
    // Readiness reads re-check too, one account read at a time, at most every recheckMs.
    loggedIn = true;
    clock = 1000;
    const before = checks;
    backend.readiness();
    backend.readiness();
    await new Promise((r) => setTimeout(r, 0));
    expect(checks).toBe(before + 1);
    expect(backend.readiness()).toMatchObject({ ready: true });
  });

  it("never gates a provider that needs no OpenAI login", async () => {
    const backend = wrapBackend(
      createScriptedBackend([{ chunks: ["ok"] }]),
      requireBackendAuth(async () => ({ authenticated: false, requiresOpenaiAuth: false, detail: "" }), {
        authenticated: false,
        requiresOpenaiAuth: false,
        detail: "",
      }),
    );
    expect(await drain(backend.stream(request, { signal }))).toContain("finish");
  });
});
