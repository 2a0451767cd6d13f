import { performance } from "node:perf_hooks";
import autocannon from "autocannon";
import { summarize } from "../stats.js";
import { type Expectation, FULL_CHECK_EVERY, problemOf } from "./peer-check.js";
import { cpuUsOf, type PeerProcess } from "./peers.js";

export interface PeerWorkload {
  readonly id: string;
  readonly label: string;
  readonly body: Readonly<Record<string, unknown>>;
  readonly expect: Expectation;
}

export interface PeerRun {
  readonly peer: string;
  readonly connections: number;
  readonly requests: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Gateway process CPU per request (NaN for `direct`: there is no gateway). */
  readonly cpuUsPerRequest: number;
  /** Responses that failed the check, non-2xx answers and connection errors. */
  readonly bad: number;
  readonly firstProblem?: string | undefined;
}

/**
 * One closed-loop autocannon run of `workload` against `peer` for `seconds`; every response is
 * checked (cheaply, one in FULL_CHECK_EVERY fully) and CPU is read from /proc around the window.
 */
export const runPeerLoad = async (
  peer: PeerProcess,
  workload: PeerWorkload,
  connections: number,
  seconds: number,
): Promise<PeerRun> => {
  const latencies: number[] = [];
  let seen = 0;
  let bad = 0;
  let firstProblem: string | undefined;
  const onResponse = (status: number, body: string) => {
    const problem = problemOf(workload.expect, status, body, seen++ % FULL_CHECK_EVERY === 0);
    if (problem !== undefined) {
      bad++;
      firstProblem ??= problem;
    }
  };
  const cpuBefore = peer.name === "direct" ? 0 : await cpuUsOf(peer.pid);
  const started = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${peer.url}/v1/chat/completions`,
        connections,
        duration: seconds,
        timeout: 30,
        requests: [
          {
            method: "POST",
            headers: { "content-type": "application/json", ...peer.headers },
            body: JSON.stringify(workload.body),
            onResponse,
          },
        ],
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
    instance.on("response", (_c: unknown, _s: number, _b: number, responseTime: number) => {
      latencies.push(responseTime);
    });
  });
  const elapsed = (performance.now() - started) / 1000;
  const cpu = peer.name === "direct" ? Number.NaN : (await cpuUsOf(peer.pid)) - cpuBefore;
  const latency = summarize(latencies);
  return {
    peer: peer.name,
    connections,
    requests: latencies.length,
    rps: latencies.length / elapsed,
    p50Ms: latency.p50,
    p99Ms: latency.p99,
    cpuUsPerRequest: latencies.length > 0 ? cpu / latencies.length : Number.NaN,
    bad: bad + result.errors + result.timeouts + result.non2xx,
    firstProblem,
  };
};
