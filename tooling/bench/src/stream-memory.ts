import { Agent, type ClientRequest, request } from "node:http";
import type { MemoryReply, ServerChild } from "./child/protocol.js";
import { singleConnectionAgent, timedPost } from "./http-client.js";
import { requestBody } from "./scenarios.js";

export interface StreamMemoryResult {
  readonly streams: number;
  readonly idle: MemoryReply;
  readonly loaded: MemoryReply;
  readonly rssPerStreamKiB: number;
  readonly heapPerStreamKiB: number;
  readonly activeTurnsWhileLoaded: number;
  readonly activeTurnsAfterClose: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Opens one streaming request and resolves once its first bytes arrived (the stream is live). */
const openStream = (url: string, agent: Agent): Promise<ClientRequest> =>
  new Promise((resolve, reject) => {
    const payload = JSON.stringify(requestBody("chat", "bench-idle", true));
    const req = request(`${url}/v1/chat/completions`, {
      method: "POST",
      agent,
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
    });
    req.on("response", (res) => {
      if (res.statusCode !== 200) reject(new Error(`idle stream answered ${res.statusCode}`));
      res.once("data", () => resolve(req));
      res.on("error", () => {}); // destroyed by us at the end
    });
    req.on("error", (e) => reject(e));
    req.end(payload);
  });

/**
 * Gateway RSS with `streams` open, idle streams (the scripted backend sends one delta, then
 * stalls) minus its idle RSS, per stream. Both figures after forced GC, on a fresh gateway
 * warmed with a few ordinary requests so code loading is not counted.
 */
export const runStreamMemory = async (gateway: ServerChild, streams: number): Promise<StreamMemoryResult> => {
  const warm = singleConnectionAgent();
  for (let i = 0; i < 50; i++)
    await timedPost(`${gateway.url}/v1/chat/completions`, requestBody("chat", "bench-text", true), warm);
  warm.destroy();
  await sleep(200);
  const idle = await gateway.request<MemoryReply>({ type: "memory", gc: true });
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const open: ClientRequest[] = [];
  try {
    for (let i = 0; i < streams; i += 50)
      open.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(50, streams - i) }, () => openStream(gateway.url, agent)),
        )),
      );
    await sleep(200);
    const loaded = await gateway.request<MemoryReply>({ type: "memory", gc: true });
    for (const req of open) req.destroy();
    let after = loaded;
    for (let i = 0; i < 50 && (after.activeTurns ?? 0) > 0; i++) {
      await sleep(100);
      after = await gateway.request<MemoryReply>({ type: "memory", gc: false });
    }
    return {
      streams,
      idle,
      loaded,
      rssPerStreamKiB: (loaded.rss - idle.rss) / streams / 1024,
      heapPerStreamKiB: (loaded.heapUsed - idle.heapUsed) / streams / 1024,
      activeTurnsWhileLoaded: loaded.activeTurns ?? Number.NaN,
      activeTurnsAfterClose: after.activeTurns ?? Number.NaN,
    };
  } finally {
    for (const req of open) req.destroy();
    agent.destroy();
  }
};
