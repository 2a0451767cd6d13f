// Does one abusive client slow everyone else? 64 connections of ordinary non-streaming chat turns
// against the built gateway (an OpenAI-compatible route to a fast local upstream), alone and next to
// one abusive client per scenario; prints each run's p99. Run from the repository root after `pnpm run build`:
//   node tooling/bench/scripts/abuse-load.mjs
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import autocannon from "autocannon";

const SECONDS = Number(process.env.SECONDS_PER_RUN ?? 10);
const chunk = (content, finish = null) =>
  `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: content === undefined ? {} : { content }, finish_reason: finish }] })}\n\n`;

const upstream = createServer((req, res) => {
  if (req.method === "GET") {
    res.writeHead(200, { "content-type": "application/json" });
    return res.end(JSON.stringify({ data: [{ id: "m" }] }));
  }
  let body = "";
  req.on("data", (b) => {
    body += b;
  });
  req.on("end", () => {
    if (body.includes("endless")) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const frame = chunk("lorem ipsum dolor sit amet ".repeat(150));
      const pump = () => {
        while (!res.destroyed) if (!res.write(frame)) return void res.once("drain", pump);
      };
      return pump();
    }
    if (body.includes("echo")) {
      res.writeHead(429, { "content-type": "application/json", "retry-after": "99999999999" });
      return res.end(
        JSON.stringify({
          error: { message: `${req.headers.authorization} at ${req.headers.host}${req.url}` },
        }),
      );
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(`${chunk("ok")}${chunk(undefined, "stop")}data: [DONE]\n\n`);
  });
});
await new Promise((resolve) => upstream.listen(0, "127.0.0.1", resolve));
const upstreamUrl = `http://127.0.0.1:${upstream.address().port}/v1`;

const gateway = spawn(process.execPath, ["apps/proxy/dist/main.js"], {
  env: {
    ...process.env,
    PORT: "0",
    LOG_LEVEL: "info",
    PROXY_STORE: "memory",
    PROXY_STORE_MAX_RESPONSE_BYTES: String(1024 * 1024),
    UPSTREAM_KEY: "sk-upstream-secret-0123456789",
    PROXY_MODELS: JSON.stringify([
      {
        id: "m",
        backend: "openai-compatible",
        baseUrl: upstreamUrl,
        apiKeyEnv: "UPSTREAM_KEY",
        maxInFlight: 256,
      },
    ]),
    PROXY_MAX_IN_FLIGHT: "256",
  },
  stdio: ["ignore", "pipe", "inherit"],
});
const url = await new Promise((resolve) => {
  let buffered = "";
  gateway.stdout.on("data", (b) => {
    buffered += b;
    const line = buffered.split("\n").find((l) => l.includes('"gateway listening"'));
    if (line) {
      resolve(JSON.parse(line).url);
      buffered = "";
      gateway.stdout.removeAllListeners("data");
      gateway.stdout.resume();
    } else if (buffered.length > 1e6) buffered = "";
  });
});

const post = (body) =>
  fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  })
    .then((r) => r.arrayBuffer())
    .catch(() => undefined);
const ask = (content, extra = {}) => ({ model: "m", messages: [{ role: "user", content }], ...extra });

/** One abusive client: sends its request again and again until stopped. */
const ABUSERS = {
  none: undefined,
  "6: endless upstream stream, non-streaming client": () => post(ask("endless please")),
  "5/11: upstream error echoing secrets, Retry-After of years": () => post(ask("echo please")),
  "7: 2 MB inputs to the store": () =>
    fetch(`${url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", input: "x ".repeat(1024 * 1024) }),
    })
      .then((r) => r.arrayBuffer())
      .catch(() => undefined),
};

const p99 = (latencies) => latencies.sort((a, b) => a - b)[Math.floor(latencies.length * 0.99)] ?? Number.NaN;
for (const [name, abuse] of Object.entries(ABUSERS)) {
  let running = abuse !== undefined;
  let abusive = 0;
  const loop = (async () => {
    while (running) {
      await abuse();
      abusive++;
    }
  })();
  const latencies = [];
  const result = await new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${url}/v1/chat/completions`,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(ask("hi")),
        connections: 64,
        duration: SECONDS,
        timeout: 30,
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
    instance.on("response", (_c, _s, _b, ms) => latencies.push(ms));
  });
  running = false;
  await loop;
  console.log(
    `${name.padEnd(58)} p99 ${p99(latencies).toFixed(1)} ms, ${(latencies.length / SECONDS).toFixed(0)} req/s, non-2xx ${result.non2xx}, abusive requests ${abusive}`,
  );
}
gateway.kill("SIGTERM");
upstream.close();
upstream.closeAllConnections();
