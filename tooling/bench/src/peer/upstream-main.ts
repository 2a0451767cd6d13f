/**
 * The peer benchmark's fake OpenAI-compatible upstream, in its own process (its CPU is not any
 * gateway's). Runs under plain Node (type stripping): node builtins only, no relative imports.
 *
 * `POST /v1/chat/completions`: model `fake-d<N>` answers `w0 w1 … w<N-1> ` (JSON, or SSE with one
 * chunk per word, each its own write); `fake-tool-d<N>` answers a short preamble and one sentinel
 * `<tool_call>` block cut into N deltas. `GET /v1/models` serves readiness probes.
 * Prints `{"port":N}` on stdout once listening.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

const TOOL_BLOCK = '<tool_call>{"name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}</tool_call>';

const wordsOf = (n: number): string[] => Array.from({ length: n }, (_, i) => `w${i} `);

/** The deltas a model name stands for (the gateway's check derives the same text: see peer-check.ts). */
const deltasOf = (model: string): string[] => {
  const tool = /^fake-tool-d(\d+)$/.exec(model);
  if (tool) {
    const n = Math.max(1, Number(tool[1]));
    const size = Math.ceil(TOOL_BLOCK.length / n);
    const parts = ["Checking. "];
    for (let i = 0; i < TOOL_BLOCK.length; i += size) parts.push(TOOL_BLOCK.slice(i, i + size));
    return parts;
  }
  const plain = /^fake-d(\d+)$/.exec(model);
  return wordsOf(plain ? Math.max(1, Number(plain[1])) : 1);
};

const usage = { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 };

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });

const answer = async (req: IncomingMessage, res: ServerResponse) => {
  if (req.method === "GET" && req.url?.endsWith("/models")) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"object":"list","data":[]}');
    return;
  }
  const body = JSON.parse(await readBody(req)) as { model?: string; stream?: boolean };
  const model = body.model ?? "fake-d1";
  const deltas = deltasOf(model);
  const created = Math.floor(Date.now() / 1000);
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: "chatcmpl-fake",
        object: "chat.completion",
        created,
        model,
        choices: [
          { index: 0, message: { role: "assistant", content: deltas.join("") }, finish_reason: "stop" },
        ],
        usage,
      }),
    );
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const chunk = (delta: Record<string, unknown>, finish: string | null, extra = "") =>
    `data: {"id":"chatcmpl-fake","object":"chat.completion.chunk","created":${created},"model":"${model}","choices":[{"index":0,"delta":${JSON.stringify(delta)},"finish_reason":${finish === null ? "null" : `"${finish}"`}}]${extra}}\n\n`;
  res.write(chunk({ role: "assistant", content: "" }, null));
  for (const d of deltas) res.write(chunk({ content: d }, null));
  res.write(chunk({}, "stop", `,"usage":${JSON.stringify(usage)}`));
  res.end("data: [DONE]\n\n");
};

const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  answer(req, res).catch((e: unknown) => {
    res.writeHead(500, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: String(e) } }));
  });
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === "object" && address ? address.port : 0 })}\n`,
  );
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
