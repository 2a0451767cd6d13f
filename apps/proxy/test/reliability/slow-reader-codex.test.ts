import { makeCodexHome, startScriptedModelProvider } from "@proxy/adapter-codex-appserver/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, openInspector, openSlowClient, readBytes, rssBytes } from "../support/process-probes.js";
import { type SpawnedGateway, spawnGateway } from "../support/spawn-gateway.js";

// A 3 MB answer in 32-character deltas: about 98,000 codex notifications (issue 25, item 15).
// Retained memory is sampled through the inspector, whose commands run between any two JS statements:
// a sample taken while the gateway parses codex's end-of-turn lines (each repeats the whole answer)
// counts up to three copies of it (+9 MiB, for a reading client too), so the test holds the end of
// the answer back while it samples the delta stream, and measures again once codex's turn is read.
const DELTA = "0123456789abcdefghijklmnopqrstu ";
const DELTAS = 98_304;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a paused reader of a long codex answer (real gateway process, real codex)", {
  timeout: 180_000,
}, () => {
  let gateway: SpawnedGateway;
  let inspector: Awaited<ReturnType<typeof openInspector>>;
  let cleanup: () => Promise<void> = async () => undefined;
  let completeAnswer: () => void = () => undefined;
  const answerCompleted = new Promise<void>((resolve) => {
    completeAnswer = resolve;
  });
  beforeAll(async () => {
    const provider = await startScriptedModelProvider((request) =>
      JSON.stringify(request.body).includes("a lot")
        ? { chunks: Array.from({ length: DELTAS }, () => DELTA), completeAfter: answerCompleted }
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
      completeAnswer();
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
    const mib = (n: number) => (n / 2 ** 20).toFixed(1);
    let peakRss = 0;
    /** Samples while the gateway reads from codex, until it has read `atLeast` more bytes and then nothing for a while. */
    const sampleUntilRead = async (atLeast: number) => {
      const from = readBytes(pid);
      let peak = 0;
      let last = from;
      for (const deadline = Date.now() + 120_000; Date.now() < deadline; ) {
        await sleep(500);
        peak = Math.max(peak, (await inspector.retainedBytes()) - baseline);
        peakRss = Math.max(peakRss, rssBytes(pid) - baselineRss);
        const read = readBytes(pid);
        if (read - from >= atLeast && read - last < 64 * 1024) return peak;
        last = read;
      }
      throw new Error(`the gateway read only ${mib(readBytes(pid) - from)} MiB from codex`);
    };
    // The client reads nothing. First every delta: each codex line carries one (about 240 bytes).
    const streamingPeak = await sampleUntilRead(DELTAS * DELTA.length * 4);
    // Then codex's end of turn: three lines that each repeat the whole 3 MB answer. Parsing them is
    // the same transient for any client, so the paused reader's share is measured once they are read.
    completeAnswer();
    await sampleUntilRead(DELTAS * DELTA.length);
    const afterTurn = (await inspector.retainedBytes()) - baseline;
    client.take(Number.POSITIVE_INFINITY);
    client.destroy();
    console.info(
      `paused codex reader: retained +${mib(streamingPeak)} MiB at most while codex streamed, +${mib(afterTurn)} MiB after its turn; RSS +${mib(peakRss)} MiB`,
    );
    // Before the bound was by bytes: +8.4 MiB retained (20,000 queued notifications), RSS +10–19 MiB.
    expect(streamingPeak).toBeLessThan(6 * 2 ** 20);
    expect(afterTurn).toBeLessThan(6 * 2 ** 20);
  });
});
