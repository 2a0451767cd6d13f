/**
 * The abuse load check: 64 connections of normal Chat requests against the real gateway (its own
 * process, scripted backend), once alone and once beside one abusive client per item, which sends
 * its request back to back. Prints the normal clients' p50/p99 and throughput for each run. Then the
 * same against a gateway with tracing (to a collector that never answers), the access log and
 * per-key usage on, for the abusers of model names and telemetry, with its RSS after each run; then
 * against a gateway with the request inspector on (500 keys, live pages that never read), with its
 * RSS; then over the real codex binary, with codex's abusers and the gateway's and codex's RSS.
 * `pnpm --filter @proxy/bench exec tsx --conditions=@proxy/source src/abuse-main.ts [seconds] [section]`
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import { noisePng } from "@proxy/adapter-codex-appserver/testing";
import autocannon from "autocannon";
import { descendantsRss, rssOf } from "./proc.js";

const seconds = Number(process.argv[2] ?? "10");
/** Only one section (`plain`, `traced`, `inspector`, `codex`); all by default. */
const only = process.argv[3];
const runs = (section: string) => only === undefined || only === section;

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

/** A child's resident memory now, as the result lines print it. */
const rssLine = (child: ChildProcess) => {
  const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
  return `rss ${Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024)} MB`;
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

/** One request of a codex abuser, answered with what to count it as (a status, or what happened). */
type CodexAbuse = { readonly name: string; readonly send: (url: string) => Promise<string> };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends `body` and never reads the answer: holds the connection `holdMs`, then drops it. */
const neverRead = async (url: string, body: object, holdMs: number): Promise<string> => {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  socket.on("error", () => {});
  const payload = JSON.stringify(body);
  socket.write(
    `POST /v1/chat/completions HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`,
  );
  socket.pause();
  await sleep(holdMs);
  socket.destroy();
  return "dropped unread";
};

/** `body` as an object, or already serialised (a big body built before the run, off the load's loop). */
const post = async (
  url: string,
  body: object | string,
  headers: Record<string, string> = {},
): Promise<string> => {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return res.status < 300 ? String(res.status) : `${res.status} ${text.slice(0, 120)}`;
};

const photoMessage = (photo: string, stream: boolean) => ({
  model: "m",
  stream,
  messages: [
    {
      role: "user",
      content: [
        { type: "text", text: "What is in this photo?" },
        { type: "image_url", image_url: { url: photo } },
      ],
    },
  ],
});

/** 1,000 tools of about 1,100 characters: a 1.1 MB tool list, new names each time. */
const bigToolList = () => {
  const tag = randomRun(6);
  return Array.from({ length: 1_000 }, (_, i) => ({
    type: "function",
    function: {
      name: `${tag}_${i}`,
      description: "d".repeat(1_000),
      parameters: { type: "object", properties: { q: { type: "string" } } },
    },
  }));
};

const codexAbusers = (photo: string): CodexAbuse[] => [
  {
    name: "codex 1: a 5 MB photo, streamed to a client that never reads (dropped after 2 s)",
    send: (url) => neverRead(url, photoMessage(photo, true), 2_000),
  },
  {
    name: "codex 1: a 5 MB photo, read in full",
    send: (url) => post(url, photoMessage(photo, false)),
  },
  {
    name: "codex 1: a 1 MB answer to a client that never reads (dropped after 2 s)",
    send: (url) =>
      neverRead(
        url,
        { model: "m", stream: true, messages: [{ role: "user", content: "write a lot" }] },
        2_000,
      ),
  },
  {
    name: "codex 13: a new conversation with a 1.1 MB native tool list each time",
    send: (url) =>
      post(url, {
        model: "m",
        messages: [{ role: "user", content: `hello ${randomRun(8)}` }],
        tools: bigToolList(),
      }),
  },
];

const normalLoad = (url: string, headers: Record<string, string> = {}, connections = 64) =>
  new Promise<autocannon.Result>((resolve, reject) =>
    autocannon(
      {
        url: `${url}/v1/chat/completions`,
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hello" }] }),
        connections,
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

/** One codex abuser: its requests back to back, until stopped. */
const abuseCodex = (url: string, a: CodexAbuse, stop: { done: boolean }) =>
  (async () => {
    const statuses: Record<string, number> = {};
    while (!stop.done) {
      const key = await a.send(url);
      statuses[key] = (statuses[key] ?? 0) + 1;
    }
    return statuses;
  })();

const line = (name: string, r: autocannon.Result, extra = "") =>
  console.log(
    `${name.padEnd(78)} rps ${r.requests.average.toFixed(0).padStart(5)}  p50 ${String(r.latency.p50).padStart(4)} ms  p99 ${String(r.latency.p99).padStart(5)} ms  non2xx ${r.non2xx} ${extra}`,
  );

if (runs("plain")) {
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
}

// The same load against a gateway with tracing (its collector never answers), the access log and
// per-key usage on: its own baseline, then each abuser beside it, and the gateway's RSS after each.
if (runs("traced")) {
  const traced = await startChild("./child/abuse-gateway.ts", "traced");
  const rss = () => rssLine(traced.child);
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
}

// The inspector on (500 configured keys): what it records, redacts and sends its live pages must
// not slow the others, nor grow the gateway's memory past its bounds.
if (runs("inspector")) {
  const inspected = await startChild("./child/abuse-gateway.ts", "inspector");
  const inspectedRss = () => rssLine(inspected.child);
  const noise = (n: number) => {
    let out = "";
    while (out.length < n) out += Math.random().toString(36).slice(2);
    return out.slice(0, n);
  };
  /** Live pages that never read: each its own connection, paused. */
  const stalledWatchers = (url: string, n: number) =>
    Array.from({ length: n }, () => {
      const { hostname, port } = new URL(url);
      const socket = connect(Number(port), hostname, () =>
        socket.write(
          "GET /ui/api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer admin-abuse-0123456789\r\n\r\n",
        ),
      );
      socket.pause();
      return socket;
    });
  /** A login post of `bytes` chunked bytes, sent until the gateway answers (it should at once). */
  const hugeLogin = (url: string, bytes: number) =>
    new Promise<string>((resolve) => {
      const req = httpRequest(
        `${url}/ui/login`,
        {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", "transfer-encoding": "chunked" },
        },
        (res) => {
          res.resume();
          req.destroy();
          resolve(String(res.statusCode));
        },
      );
      req.on("error", () => resolve("error"));
      const chunk = Buffer.alloc(64 * 1024, "k");
      let sent = 0;
      const pump = () => {
        while (sent < bytes && !req.destroyed) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once("drain", pump);
        }
        if (!req.destroyed) req.end();
      };
      req.write("key=");
      pump();
    });
  // Bodies built before the runs, four of each kind taken in turn: building 7 MB of random text per
  // request would hold this process's loop, which also runs the normal clients' load and times it.
  const bodies = (n: number, make: () => object) => Array.from({ length: n }, () => JSON.stringify(make()));
  const bigRequests = bodies(4, () => ({
    model: "m",
    messages: Array.from({ length: 1_750 }, (_, i) => ({
      role: "user",
      content: `${i === 0 ? "sk-abuse-0123456789 " : ""}${noise(4_000)}`,
    })),
  }));
  const failingPrompts = bodies(4, () => ({
    model: "m",
    messages: [{ role: "user", content: `fail ${noise(1_000_000)}` }],
  }));
  let turn = 0;
  const next = (list: string[]) => list[turn++ % list.length] as string;
  const inspectorAbusers: CodexAbuse[] = [
    {
      name: "inspector: 7 MB requests (1,750 messages of random text), 500 keys to redact",
      send: (url) => post(url, next(bigRequests), KEYED),
    },
    {
      name: "inspector: failed turns quoting a 1 MB prompt, 8 live pages that never read",
      // Each refusal quotes its own prompt: counted by status alone.
      send: (url) => post(url, next(failingPrompts), KEYED).then((status) => status.slice(0, 3)),
    },
    { name: "inspector: 200 MB chunked login posts", send: (url) => hugeLogin(url, 200 * 1024 * 1024) },
  ];
  try {
    await normalLoad(inspected.url, KEYED); // warm-up
    line(
      "inspector baseline (64 connections, no abuser)",
      await normalLoad(inspected.url, KEYED),
      inspectedRss(),
    );
    const watchers = stalledWatchers(inspected.url, 8);
    for (const a of inspectorAbusers) {
      const stop = { done: false };
      const abuser = abuseCodex(inspected.url, a, stop);
      const result = await normalLoad(inspected.url, KEYED);
      stop.done = true;
      const statuses = JSON.stringify(await abuser);
      line(`with abuser ${a.name}`, result, `${inspectedRss()} abuser statuses ${statuses}`);
    }
    for (const w of watchers) w.destroy();
    line("inspector baseline again", await normalLoad(inspected.url, KEYED), inspectedRss());
  } finally {
    inspected.child.kill("SIGTERM");
  }
}

// The same check over the real codex binary (scripted model provider): 8 connections of normal
// clients (a codex turn costs codex tens of ms of CPU) share its app-server with the abuser. After
// each run: the gateway's RSS and codex's (its descendants).
if (runs("codex")) {
  const CODEX_CONNECTIONS = 8;
  const codex = await startChild("./child/abuse-codex-gateway.ts");
  const mib = (n: number) => `${(n / 2 ** 20).toFixed(0)} MiB`;
  const memory = async () => {
    const pid = codex.child.pid as number;
    return `gateway RSS ${mib(await rssOf(pid))}, codex RSS ${mib(await descendantsRss(pid))}`;
  };
  try {
    const photo = `data:image/png;base64,${noisePng(1300).toString("base64")}`;
    await normalLoad(codex.url, {}, CODEX_CONNECTIONS); // warm-up
    line(
      "codex baseline (8 connections, no abuser)",
      await normalLoad(codex.url, {}, CODEX_CONNECTIONS),
      await memory(),
    );
    for (const a of codexAbusers(photo)) {
      const stop = { done: false };
      const abuser = abuseCodex(codex.url, a, stop);
      const result = await normalLoad(codex.url, {}, CODEX_CONNECTIONS);
      stop.done = true;
      const statuses = JSON.stringify(await abuser);
      line(`with abuser ${a.name}`, result, `abuser statuses ${statuses}; ${await memory()}`);
    }
    line("codex baseline again", await normalLoad(codex.url, {}, CODEX_CONNECTIONS), await memory());
  } finally {
    codex.child.kill("SIGTERM");
  }
}
