import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import {
  makeCodexHome,
  type RecordedRequest,
  startScriptedModelProvider,
} from "@proxy/adapter-codex-appserver/testing";
import { type PostgresServer, startPostgresServer } from "@proxy/adapter-store-sql/testing";
import OpenAI from "openai";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/config.js";
import { type RunningGateway, startGateway } from "../../src/gateway.js";
import { lastUserText } from "./e2e-gateway.js";

const KEY = "sk-replicas-0123456789";
const LEASE_MS = "2000";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The scripted model: `hang …` never finishes, `slow …` streams word by word, else an echo. */
const model = (request: RecordedRequest) => {
  const input = lastUserText(request);
  if (input.startsWith("hang")) return { chunks: ["Working on it"], hang: true };
  if (input.startsWith("slow")) return { chunks: ["one ", "two ", "three ", "four ", "five"], delayMs: 150 };
  return { text: `Echo: ${input}` };
};

type Status = "queued" | "in_progress" | "completed" | "failed" | "cancelled" | "incomplete";

const pollUntil = async (
  client: OpenAI,
  id: string,
  done: (status: Status) => boolean,
  timeoutMs = 20_000,
) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await client.responses.retrieve(id);
    if (done(response.status as Status) || Date.now() > deadline) return response;
    await sleep(100);
  }
};

describe("two gateway processes on one PostgreSQL behave as one service", { timeout: 120_000 }, () => {
  let postgres: PostgresServer;
  let storeUrl: string;
  let provider: Awaited<ReturnType<typeof startScriptedModelProvider>>;
  const homes: Array<Awaited<ReturnType<typeof makeCodexHome>>> = [];
  const gateways: RunningGateway[] = [];

  const startReplica = async () => {
    const home = await makeCodexHome(provider.url);
    homes.push(home);
    const config = resolveConfig({
      env: { PROXY_STORE: storeUrl, PROXY_API_KEYS: KEY, PROXY_STORE_LEASE_MS: LEASE_MS },
      flags: { port: "0" },
    });
    const gateway = await startGateway(config, {
      logger: pino({ level: "silent" }),
      env: { ...process.env, CODEX_HOME: home.path },
    });
    gateways.push(gateway);
    return new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: KEY, maxRetries: 0 });
  };

  let a: OpenAI;
  let b: OpenAI;
  beforeAll(async () => {
    postgres = await startPostgresServer();
    storeUrl = await postgres.createDatabase("replicas");
    provider = await startScriptedModelProvider(model);
    [a, b] = await Promise.all([startReplica(), startReplica()]);
  }, 90_000);
  afterAll(async () => {
    for (const gateway of gateways) await gateway.shutdown("test done");
    await provider?.close();
    for (const home of homes) await home.cleanup();
    await postgres?.stop();
  });

  it("created on one, retrieved, listed and continued on the other", async () => {
    const first = await a.responses.create({ model: "m", input: "remember plum" });
    expect((await b.responses.retrieve(first.id)).output_text).toBe("Echo: remember plum");
    expect((await b.responses.inputItems.list(first.id)).data).toHaveLength(1);
    const next = await b.responses.create({ model: "m", previous_response_id: first.id, input: "and then?" });
    expect(JSON.stringify(provider.requests.at(-1)?.body)).toContain("remember plum");
    expect((await a.responses.retrieve(next.id)).previous_response_id).toBe(first.id);
  });

  it("background on one, polled to completion on the other", async () => {
    const started = await a.responses.create({ model: "m", input: "slow count", background: true });
    expect(started).toMatchObject({ background: true, status: "queued" });
    const done = await pollUntil(b, started.id, (s) => s === "completed");
    expect(done.status).toBe("completed");
    expect(done.output_text).toBe("one two three four five");
  });

  it("background stream left on one, resumed with starting_after on the other", async () => {
    const stream = await a.responses.create({
      model: "m",
      input: "slow stream",
      background: true,
      stream: true,
    });
    const seen: Array<{ type: string; sequence_number: number }> = [];
    let id = "";
    for await (const event of stream) {
      seen.push(event);
      if (event.type === "response.created") id = event.response.id;
      if (event.type === "response.output_text.delta") break; // the client goes away mid-answer
    }
    const last = seen.at(-1)?.sequence_number ?? 0;
    const resumed = await b.responses.retrieve(id, { stream: true, starting_after: last });
    const rest: Array<{ type: string; sequence_number: number }> = [];
    for await (const event of resumed) rest.push(event);
    expect(rest[0]?.sequence_number).toBe(last + 1);
    expect(rest.map((e) => e.sequence_number)).toEqual(rest.map((_, i) => last + 1 + i));
    const final = rest.at(-1) as unknown as {
      type: string;
      response: { output_text?: string; status: string };
    };
    expect(final.type).toBe("response.completed");
    expect(final.response.status).toBe("completed");
  });

  it("cancelled on the other replica: the backend turn is interrupted; a new replica leaves live turns alone", async () => {
    const started = await a.responses.create({ model: "m", input: "hang on", background: true });
    const upstream = await provider.waitFor((r) => lastUserText(r).startsWith("hang on"));
    // A replica starting now must not fail a turn whose process is alive and renewing its lease.
    const c = await startReplica();
    await sleep(Number(LEASE_MS) * 2);
    expect((await c.responses.retrieve(started.id)).status).toBe("in_progress");

    const cancelled = await b.responses.cancel(started.id);
    expect(cancelled.status).toBe("cancelled");
    await provider.waitFor((r) => r.index === upstream.index && r.disconnected);
    expect((await a.responses.retrieve(started.id)).status).toBe("cancelled");
  });

  it("a gateway process killed with a background turn in flight: the turn is failed once its lease runs out", async () => {
    const home = await makeCodexHome(provider.url);
    homes.push(home);
    const main = fileURLToPath(new URL("../../src/main.ts", import.meta.url));
    const tsx = createRequire(import.meta.url).resolve("tsx");
    const child = spawn(process.execPath, ["--conditions=@proxy/source", "--import", tsx, main], {
      env: {
        ...process.env,
        PORT: "0",
        LOG_LEVEL: "info",
        CODEX_HOME: home.path,
        PROXY_STORE: storeUrl,
        PROXY_API_KEYS: KEY,
        PROXY_STORE_LEASE_MS: LEASE_MS,
      },
      stdio: ["ignore", "pipe", "inherit"],
      detached: true, // its own process group: the kill takes its codex children too
    });
    const url = await new Promise<string>((resolve, reject) => {
      // A hang names its step instead of running into the test's own timeout.
      const timer = setTimeout(() => reject(new Error("the doomed gateway did not start in 60 s")), 60_000);
      child.once("exit", () => clearTimeout(timer));
      let buffered = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        buffered += chunk.toString();
        const match = /"msg":"gateway listening"/.test(buffered) && /"url":"([^"]+)"/.exec(buffered);
        if (match) {
          clearTimeout(timer);
          resolve(match[1] ?? "");
        }
      });
      child.once("exit", (code) => reject(new Error(`gateway exited early (${code})`)));
    });
    const doomed = new OpenAI({ baseURL: `${url}/v1`, apiKey: KEY, maxRetries: 0 });
    const started = await doomed.responses.create({ model: "m", input: "hang forever", background: true });
    await Promise.race([
      provider.waitFor((r) => lastUserText(r).startsWith("hang forever")),
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error("the background turn never reached the provider in 60 s")), 60_000),
      ),
    ]);
    process.kill(-(child.pid ?? 0), "SIGKILL");

    // Killed just as the model was asked: it may not have recorded `in_progress` yet; it is unfinished.
    expect(["queued", "in_progress"]).toContain((await a.responses.retrieve(started.id)).status);
    const failed = await pollUntil(a, started.id, (s) => s !== "queued" && s !== "in_progress", 15_000);
    expect(failed.status).toBe("failed");
    expect(failed.error?.message).toMatch(/stopped before it finished/);
    const replay = await b.responses.retrieve(started.id, { stream: true });
    const events: string[] = [];
    for await (const event of replay) events.push(event.type);
    expect(events.at(-1)).toBe("response.failed");
  });
});
