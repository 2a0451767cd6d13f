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
    const backend = requireBackendAuth(createScriptedBackend([{ chunks: ["ok"] }]), check, await check(), {
      recheckMs: 1000,
      now: () => clock,
    });
    await expect(drain(backend.stream(request, { signal }))).rejects.toMatchObject({ kind: "backend_auth" });
    loggedIn = true;
    await expect(drain(backend.stream(request, { signal }))).rejects.toMatchObject({ kind: "backend_auth" });
    clock = 1000;
    expect(await drain(backend.stream(request, { signal }))).toContain("text-delta");
  });

  it("never gates a provider that needs no OpenAI login", async () => {
    const backend = requireBackendAuth(
      createScriptedBackend([{ chunks: ["ok"] }]),
      async () => ({ authenticated: false, requiresOpenaiAuth: false, detail: "" }),
      { authenticated: false, requiresOpenaiAuth: false, detail: "" },
    );
    expect(await drain(backend.stream(request, { signal }))).toContain("finish");
  });
});
