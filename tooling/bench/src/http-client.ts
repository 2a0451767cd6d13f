import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";
import { createSseReader, textDeltaOf } from "./sse.js";

export interface TimedResponse {
  readonly status: number;
  /** Milliseconds from sending the request to the response head, the first body byte, the first text delta, the end. */
  readonly headersMs: number;
  readonly firstByteMs: number;
  readonly firstTextMs: number;
  readonly totalMs: number;
  /** Every text delta with its arrival time (ms since the request was sent). */
  readonly deltas: ReadonlyArray<{ readonly text: string; readonly atMs: number }>;
}

/** A keep-alive agent with one socket: sequential requests reuse one connection, as a real client does. */
export const singleConnectionAgent = () => new Agent({ keepAlive: true, maxSockets: 1 });

/** POSTs `body` and times the response's milestones (SSE text deltas are parsed as they arrive). */
export const timedPost = (url: string, body: unknown, agent: Agent): Promise<TimedResponse> =>
  new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const deltas: Array<{ text: string; atMs: number }> = [];
    const reader = createSseReader();
    let headersMs = Number.NaN;
    let firstByteMs = Number.NaN;
    let firstTextMs = Number.NaN;
    const req = request(
      url,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
      },
      (res) => {
        headersMs = performance.now() - t0;
        res.setEncoding("utf8");
        res.on("data", (piece: string) => {
          const at = performance.now() - t0;
          if (Number.isNaN(firstByteMs)) firstByteMs = at;
          for (const event of reader.push(piece)) {
            const text = textDeltaOf(event);
            if (text === undefined) continue;
            if (Number.isNaN(firstTextMs)) firstTextMs = at;
            deltas.push({ text, atMs: at });
          }
        });
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headersMs,
            firstByteMs,
            firstTextMs,
            totalMs: performance.now() - t0,
            deltas,
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    const t0 = performance.now();
    req.end(payload);
  });
