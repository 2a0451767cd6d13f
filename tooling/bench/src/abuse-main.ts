/**
 * Issue 25's load check: 64 connections of normal Chat requests against the real gateway (its own
 * process, scripted backend), once alone and once beside one abusive client per item, which sends
 * its request back to back. Prints the normal clients' p50/p99 and throughput for each run. Then the
 * same against a gateway with tracing (to a collector that never answers), the access log and
 * per-key usage on, for the abusers of model names and telemetry, with its RSS after each run.
 * `pnpm --filter @proxy/bench exec tsx --conditions=@proxy/source src/abuse-main.ts [seconds]`
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";

const seconds = Number(process.argv[2] ?? "10");

const startChild = async (file: string, ...args: string[]): Promise<{ child: ChildProcess; url: string }> => {
  const child = spawn(
    process.execPath,
    ["--conditions=@proxy/source", "--import", "tsx", fileURLToPath(new URL(file, import.meta.url)), ...args],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const [line] = (await once(child.stdout as NodeJS.ReadableStream, "data")) as [Buffer];
  return { child, url: line.toString().trim() };
};

const randomRun = (n: number) => {
  let out = "";
  for (let i = 0; i < n; i++) out += String.fromCharCode(97 + Math.floor(Math.random() * 26));
  return out;
};

const wide = (n: number, tag: string) => {
  const properties: Record<string, object> = {};
  for (let i = 0; i < n; i++) properties[`${tag}_${i}`] = { type: "string" };
  return { type: "object", properties, required: Object.keys(properties), additionalProperties: false };
};

type Abuse = {
  readonly name: string;
  readonly path: string;
  readonly body: () => object;
  /** Sent to the traced gateway (tracing to a collector that never answers, access log, usage in SQLite). */
  readonly traced?: boolean;
  readonly headers?: Record<string, string>;
};

const KEYED = { authorization: "Bearer sk-abuse-0123456789" };
/** 5,000 tools of the longest name a client may give (64 characters). */
const manyTools = Array.from({ length: 5000 }, (_, i) => ({
  type: "function",
  function: { name: `t${String(i).padStart(5, "0")}_${"n".repeat(57)}`, parameters: { type: "object" } },
}));

/** Model names, accounting and telemetry: every sink a client-chosen name reaches, with tracing on. */
const tracedAbusers: Abuse[] = [
  {
    name: "model names of 4.5 MB (refused), traced to a silent collector",
    path: "/v1/chat/completions",
    traced: true,
    headers: KEYED,
    body: () => ({
      model: `${randomRun(8)}${"q".repeat(4_500_000)}`,
      messages: [{ role: "user", content: "hi" }],
    }),
  },
  {
    name: "model names of 256 characters, new each time, traced",
    path: "/v1/chat/completions",
    traced: true,
    headers: KEYED,
    body: () => ({ model: randomRun(256), messages: [{ role: "user", content: "hi" }] }),
  },
  {
    name: "5,000 tools of 64-character names offered, traced and logged",
    path: "/v1/chat/completions",
    traced: true,
    headers: KEYED,
    body: () => ({ model: "m", messages: [{ role: "user", content: "hi" }], tools: manyTools }),
  },
];

const abusers = (imageUrl: string): Abuse[] => [
  {
    name: "1: count_tokens, 100 KB run of letters (fresh each time)",
    path: "/v1/messages/count_tokens",
    body: () => ({ model: "m", messages: [{ role: "user", content: randomRun(100_000) }] }),
  },
  {
    name: "2: 256 stop sequences of 1,000+ chars over 300 deltas",
    path: "/v1/messages",
    body: () => ({
      model: "abuse-stop",
      max_tokens: 4096,
      stop_sequences: Array.from({ length: 256 }, (_, i) => `${"x".repeat(1000)}<${i}>`),
      messages: [{ role: "user", content: "go" }],
    }),
  },
  {
    name: "3: the same 5 MB image URL 6 times (30 MB inlined)",
    path: "/v1/chat/completions",
    body: () => ({
      model: "m",
      messages: [
        {
          role: "user",
          content: Array.from({ length: 6 }, () => ({
            type: "image_url",
            image_url: { url: `${imageUrl}/big.png` },
          })),
        },
      ],
    }),
  },
  {
    name: "4: strict schema of 120 properties, new names each time",
    path: "/v1/chat/completions",
    body: () => ({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      tools: [
        { type: "function", function: { name: "f", strict: true, parameters: wide(120, randomRun(6)) } },
      ],
    }),
  },
  {
    name: "12: 50,000 messages, 1.8 MB (refused)",
    path: "/v1/chat/completions",
    body: () => ({
      model: "m",
      messages: Array.from({ length: 50_000 }, (_, i) => ({
        role: i % 2 ? "assistant" : "user",
        content: `message ${i}`,
      })),
    }),
  },
  {
    name: "12: 10,000 messages (the most allowed)",
    path: "/v1/chat/completions",
    body: () => ({
      model: "m",
      messages: Array.from({ length: 10_000 }, (_, i) => ({
        role: i % 2 ? "assistant" : "user",
        content: `message ${i}`,
      })),
    }),
  },
];

const normalLoad = (url: string, headers: Record<string, string> = {}) =>
  new Promise<autocannon.Result>((resolve, reject) =>
    autocannon(
      {
        url: `${url}/v1/chat/completions`,
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hello" }] }),
        connections: 64,
        duration: seconds,
        timeout: 30,
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    ),
  );

/** One abusive client: its requests back to back (bodies built before each send), until stopped. */
const abuse = (url: string, a: Abuse, stop: { done: boolean }) =>
  (async () => {
    const statuses: Record<string, number> = {};
    while (!stop.done) {
      const body = JSON.stringify(a.body());
      const res = await fetch(`${url}${a.path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...a.headers },
        body,
      });
      const text = await res.text();
      // A refusal is reported with the start of its message.
      const key = res.status < 300 ? String(res.status) : `${res.status} ${text.slice(0, 120)}`;
      statuses[key] = (statuses[key] ?? 0) + 1;
    }
    return statuses;
  })();

const line = (name: string, r: autocannon.Result, extra = "") =>
  console.log(
    `${name.padEnd(78)} rps ${r.requests.average.toFixed(0).padStart(5)}  p50 ${String(r.latency.p50).padStart(4)} ms  p99 ${String(r.latency.p99).padStart(5)} ms  non2xx ${r.non2xx} ${extra}`,
  );

const gateway = await startChild("./child/abuse-gateway.ts");
const images = await startChild("./child/image-server.ts");
try {
  await normalLoad(gateway.url); // warm-up
  line("baseline (64 connections, no abuser)", await normalLoad(gateway.url));
  for (const a of abusers(images.url)) {
    const stop = { done: false };
    const abuser = abuse(gateway.url, a, stop);
    const result = await normalLoad(gateway.url);
    stop.done = true;
    line(`with abuser ${a.name}`, result, `abuser statuses ${JSON.stringify(await abuser)}`);
  }
  line("baseline again", await normalLoad(gateway.url));
} finally {
  gateway.child.kill("SIGTERM");
  images.child.kill("SIGTERM");
}

// The same load against a gateway with tracing (its collector never answers), the access log and
// per-key usage on: its own baseline, then each abuser beside it, and the gateway's RSS after each.
const traced = await startChild("./child/abuse-gateway.ts", "traced");
const rss = () => {
  const status = readFileSync(`/proc/${traced.child.pid}/status`, "utf8");
  return `rss ${Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024)} MB`;
};
try {
  await normalLoad(traced.url, KEYED); // warm-up
  line("traced baseline (64 connections, no abuser)", await normalLoad(traced.url, KEYED), rss());
  for (const a of tracedAbusers) {
    const stop = { done: false };
    const abuser = abuse(traced.url, a, stop);
    const result = await normalLoad(traced.url, KEYED);
    stop.done = true;
    line(`with abuser ${a.name}`, result, `${rss()} abuser statuses ${JSON.stringify(await abuser)}`);
  }
  line("traced baseline again", await normalLoad(traced.url, KEYED), rss());
} finally {
  traced.child.kill("SIGTERM");
}
