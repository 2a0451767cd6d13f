import { performance } from "node:perf_hooks";
import autocannon from "autocannon";
import type { ServerChild, StatsReply } from "./child/protocol.js";
import { type LatencySummary, summarize } from "./stats.js";

export interface LoadRequest {
  readonly path: string;
  readonly body: Readonly<Record<string, unknown>>;
}

export interface LoadRun {
  readonly connections: number;
  readonly seconds: number;
  readonly requests: number;
  readonly rps: number;
  readonly latencyMs: LatencySummary;
  readonly errors: number;
  readonly non2xx: number;
  /** Server CPU per request, in microseconds (from the server's own `process.cpuUsage`). */
  readonly cpuUsPerRequest: number;
  /** Server CPU use over the run as a fraction of one core. */
  readonly cpuCores: number;
}

/**
 * Drives `server` with autocannon for `seconds`. Latencies are taken from autocannon's per-response
 * timings (sub-millisecond), not its histogram (whole milliseconds).
 */
export const runLoad = async (
  server: ServerChild,
  request: LoadRequest,
  connections: number,
  seconds: number,
): Promise<LoadRun> => {
  await server.request<StatsReply>({ type: "stats-start" });
  const latencies: number[] = [];
  const started = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${server.url}${request.path}`,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(request.body),
        connections,
        duration: seconds,
        timeout: 30,
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
    instance.on("response", (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
      latencies.push(responseTime);
    });
  });
  const elapsed = (performance.now() - started) / 1000;
  const stats = await server.request<StatsReply>({ type: "stats-stop" });
  return {
    connections,
    seconds: elapsed,
    requests: latencies.length,
    rps: latencies.length / elapsed,
    latencyMs: summarize(latencies),
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    cpuUsPerRequest: stats.requests > 0 ? stats.cpuUs / stats.requests : Number.NaN,
    cpuCores: stats.cpuUs / 1e6 / elapsed,
  };
};

export interface Captured {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Headers a replay must not copy: they describe this connection or this body's framing. */
const HOP_HEADERS = new Set(["date", "connection", "keep-alive", "transfer-encoding", "content-length"]);

/** One request, the whole response kept (to build the baseline's payload from). */
export const capture = async (url: string, request: LoadRequest): Promise<Captured> => {
  const res = await fetch(`${url}${request.path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(request.body),
  });
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    if (!HOP_HEADERS.has(k)) headers[k] = v;
  });
  return { status: res.status, headers, body: await res.text() };
};
