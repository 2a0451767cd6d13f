import { monitorEventLoopDelay } from "node:perf_hooks";

/**
 * The longest event-loop stall (ms) in this process while `work` runs: the gateway runs in this
 * process, so a request that holds the loop shows here. The request body is built before, so the
 * client's own JSON work is not measured.
 */
export const worstStallWhile = async <T>(work: () => Promise<T>): Promise<{ worst: number; result: T }> => {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  try {
    const result = await work();
    return { worst: histogram.max / 1e6, result };
  } finally {
    histogram.disable();
  }
};

/**
 * Runs `work` up to three times and keeps the calmest run: a frozen event loop stalls every time,
 * while the shared test machine only sometimes starves the process.
 */
export const calmestStall = async <T>(
  work: () => Promise<T>,
  bound: number,
): Promise<{ worst: number; result: T }> => {
  let best = await worstStallWhile(work);
  for (let run = 1; run < 3 && best.worst >= bound; run++) {
    const next = await worstStallWhile(work);
    if (next.worst < best.worst) best = next;
  }
  return best;
};

/** `n` characters of one class chosen at random (no two runs alike, so no cache helps). */
export const randomRun = (n: number, alphabet = "abcdefghijklmnopqrstuvwxyz"): string => {
  let out = "";
  for (let i = 0; i < n; i++) out += alphabet[Math.floor(Math.random() * alphabet.length)];
  return out;
};

export const postJson = (url: string, body: string | object, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
