import { makeCodexHome, startScriptedModelProvider } from "@proxy/adapter-codex-appserver/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, openInspector, openSlowClient, rssBytes } from "../support/process-probes.js";
import { type SpawnedGateway, spawnGateway } from "../support/spawn-gateway.js";

// A 3 MB answer in 32-character deltas: about 98,000 codex notifications (issue 25, item 15).
const DELTA = "0123456789abcdefghijklmnopqrstu ";
const DELTAS = 98_304;

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

  it("the gateway holds a few MB for the stream, not the answer", async () => {
    const pid = gateway.child.pid as number;
    for (let i = 0; i < 2; i++) {
      const warm = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "warm up" }] }),
      });
      expect(await warm.text()).toContain("warm");
    }
    const baseline = await inspector.retainedBytes();
    const baselineRss = rssBytes(pid);
    const client = openSlowClient(gateway.url, {
      model: "m",
      stream: true,
      messages: [{ role: "user", content: "write a lot" }],
    });
    // The client reads nothing while codex produces the whole answer.
    let peakRetained = 0;
    let peakRss = 0;
    const started = Date.now();
    // Long enough for codex to stream far more than any bound (it takes about 10 s here).
    for (let i = 0; i < 24 && !client.ended(); i++) {
      await sleep(500);
      peakRetained = Math.max(peakRetained, (await inspector.retainedBytes()) - baseline);
      peakRss = Math.max(peakRss, rssBytes(pid) - baselineRss);
    }
    const seconds = (Date.now() - started) / 1000;
    client.take(Number.POSITIVE_INFINITY);
    client.destroy();
    const mib = (n: number) => (n / 2 ** 20).toFixed(1);
    console.info(
      `paused codex reader: retained +${mib(peakRetained)} MiB, RSS +${mib(peakRss)} MiB over ${seconds} s`,
    );
    // Before the bound was by bytes: +8.4 MiB retained (20,000 queued notifications), RSS +10–19 MiB.
    expect(peakRetained).toBeLessThan(6 * 2 ** 20);
  });
});
