import {
  type CodexHome,
  makeCodexHome,
  type ScriptedModelProvider,
  startScriptedModelProvider,
} from "@proxy/adapter-codex-appserver/testing";
import { type PostgresServer, startPostgresServer } from "@proxy/adapter-store-sql/testing";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILT_BIN, spawnGateway } from "../test/support/spawn-gateway.js";
import { serverEnv } from "./support.js";

// The default SQLite store is covered by built-gateway.test.ts; the other stores load other modules
// (pg) from the build, so each gets a start, a stored chain and a clean stop of its own.
describe("the built gateway on its other stores", () => {
  let provider: ScriptedModelProvider;
  let home: CodexHome;
  let postgres: PostgresServer;

  beforeAll(async () => {
    provider = await startScriptedModelProvider(() => ({ text: "Stored." }));
    home = await makeCodexHome(provider.url);
    postgres = await startPostgresServer();
  }, 120_000);

  afterAll(async () => {
    await postgres?.stop();
    await provider?.close();
    await home?.cleanup();
  });

  it.each([
    ["memory", async () => "memory"],
    ["PostgreSQL", async () => postgres.createDatabase("shipped_store")],
  ])(
    "PROXY_STORE=%s: starts, keeps a previous_response_id chain, stops with exit 0",
    async (_name, store) => {
      const gateway = await spawnGateway(
        { ...serverEnv(), CODEX_HOME: home.path, PROXY_STORE: await store() },
        { command: [process.execPath, BUILT_BIN], inheritEnv: false },
      );
      try {
        const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "unused", maxRetries: 0 });
        const first = await client.responses.create({ model: "m", input: "remember me" });
        const second = await client.responses.create({
          model: "m",
          input: "and now?",
          previous_response_id: first.id,
        });
        expect(second.output_text).toBe("Stored.");
        expect(JSON.stringify(provider.requests.at(-1)?.body.input)).toContain("remember me");
        expect((await client.responses.retrieve(first.id)).output_text).toBe("Stored.");
      } finally {
        gateway.child.kill("SIGTERM");
      }
      expect(await gateway.exited).toBe(0);
    },
  );
});
