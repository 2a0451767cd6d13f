import { makeCodexHome, startScriptedModelProvider } from "@proxy/adapter-codex-appserver/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  freePort,
  openInspector,
  openSlowClient,
  readBytes,
  rssBytes,
  warmTokenizer,
} from "../support/process-probes.js";
import { type SpawnedGateway, spawnGateway } from "../support/spawn-gateway.js";
import { chatStreamText } from "./support.js";

// A 3 MB answer in 32-character deltas: about 98,000 codex notifications of about 240 bytes, 23 MB
// of codex output, more than the 2 MiB a turn may hold for its client. Retained memory is sampled
// through the inspector, whose commands run between any two JS statements.
const DELTA = "0123456789abcdefghijklmnopqrstu ";
const DELTAS = 98_304;
const ANSWER_LINES = DELTAS * 240;
const MiB = 2 ** 20;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a paused reader of a long codex answer (real gateway process, real codex)", {
  timeout: 180_000,
}, () => {
  let gateway: SpawnedGateway;
  let inspector: Awaited<ReturnType<typeof openInspector>>;
  let cleanup: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    const provider = await startScriptedModelProvider((request) =>
      JSON.stringify(request.body).includes("a lot")
        ? { chunks: Array.from({ length: DELTAS }, () => DELTA) }
        : { text: "warm" },
    );
    const home = await makeCodexHome(provider.url);
    const inspectorPort = await freePort();
    gateway = await spawnGateway({
      CODEX_HOME: home.path,
      PROXY_WRITE_TIMEOUT_MS: "60000",
      PROXY_REQUEST_TIMEOUT_MS: "0",
      PROXY_IDLE_TIMEOUT_MS: "0",
      PROXY_STORE: "none",
      NODE_OPTIONS: `--inspect=127.0.0.1:${inspectorPort}`,
    });
    inspector = await openInspector(inspectorPort);
    cleanup = async () => {
      inspector?.close();
      gateway?.child.kill("SIGKILL");
      await provider.close();
      await home.cleanup();
    };
  }, 120_000);
  afterAll(() => cleanup());

  it("codex's output waits for the client: a few MB held while it reads nothing, then the whole answer", async () => {
    const pid = gateway.child.pid as number;
    for (let i = 0; i < 2; i++) {
      const warm = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "warm up" }] }),
      });
      expect(await warm.text()).toContain("warm");
    }
    // The tokenizer's tables (tens of MB, loaded once a moment after start) are in the baseline.
    await warmTokenizer(gateway.url);
    const baseline = await inspector.retainedBytes();
    const baselineRss = rssBytes(pid);
    const from = readBytes(pid);
    const client = openSlowClient(gateway.url, {
      model: "m",
      stream: true,
      messages: [{ role: "user", content: "write a lot" }],
    });
    const mib = (n: number) => (n / MiB).toFixed(1);
    // The client reads nothing. The gateway reads codex until the turn holds its share, then stops.
    let peak = 0;
    let peakRss = 0;
    let last = from;
    const pausedAt = Date.now();
    for (const deadline = Date.now() + 60_000; ; ) {
      await sleep(500);
      peak = Math.max(peak, (await inspector.retainedBytes()) - baseline);
      peakRss = Math.max(peakRss, rssBytes(pid) - baselineRss);
      const read = readBytes(pid);
      if (read - from > 4 * MiB && read - last < 64 * 1024) break;
      if (Date.now() > deadline) throw new Error(`the gateway kept reading: ${mib(read - from)} MiB`);
      last = read;
    }
    const readWhilePaused = readBytes(pid) - from;
    await sleep(2_000); // still paused: nothing more is read
    expect(readBytes(pid) - from - readWhilePaused).toBeLessThan(256 * 1024);
    const pausedMs = Date.now() - pausedAt;
    // Now the client reads everything.
    for (const deadline = Date.now() + 60_000; !client.ended(); ) {
      client.take(Number.POSITIVE_INFINITY);
      if (Date.now() > deadline) throw new Error("the answer did not end");
      await sleep(5);
    }
    const { text, finish } = chatStreamText(client.body());
    client.destroy();
    console.info(
      `paused codex reader: codex output read while paused ${mib(readWhilePaused)} of ${mib(ANSWER_LINES)} MiB, retained +${mib(peak)} MiB at most, RSS +${mib(peakRss)} MiB; paused ${pausedMs} ms`,
    );
    // Backpressure: the gateway stopped reading codex before even the answer's deltas were read.
    expect(readWhilePaused).toBeLessThan(ANSWER_LINES);
    expect(peak).toBeLessThan(6 * MiB);
    // Before: the turn failed once 2 MiB of notifications waited ("the client stopped reading").
    expect(client.body()).not.toContain("stopped reading");
    expect(text === DELTA.repeat(DELTAS)).toBe(true);
    expect(finish).toBe("stop");
  });
});
