/**
 * What the agent-session benches share: the scripted agent (a few words and a tool call per turn,
 * the tool's output sent back), the SSE client that times the first token, and a built gateway
 * started as its own process with codex behind a stdin meter.
 */
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type { RecordedRequest, ScriptedResponse } from "@proxy/adapter-codex-appserver/testing";

export const toolCallText = (name: string, args: object) =>
  `<tool_call>${JSON.stringify({ name, arguments: JSON.stringify(args) })}</tool_call>`;

/** The scripted model: "Step k." and a tool call until the last turn; the direct baseline gets text only. */
export const scriptedAgent =
  (turns: number) =>
  (r: RecordedRequest): ScriptedResponse => {
    const input = JSON.stringify(r.body.input ?? "");
    const done = (input.match(/OUTPUT#/g) ?? []).length;
    const step = `Step ${done + 1}. `;
    const tag = /session=([\w-]+)/.exec(input)?.[1] ?? "x";
    if (input.includes("DIRECT-BASELINE") || done >= turns - 1) return { chunks: [step, "Done."] };
    const args = { n: done + 1 };
    return ((r.body.tools ?? []) as unknown[]).length > 0
      ? {
          chunks: [step],
          items: [
            {
              type: "function_call",
              id: `fc_${tag}_${done}`,
              call_id: `call_${tag}_${done}`,
              name: "read_chunk",
              arguments: JSON.stringify(args),
            },
          ],
          itemsLast: true,
        }
      : { chunks: [step, toolCallText("read_chunk", args)] };
  };

export const outputOf = (k: number, chars: number) =>
  `OUTPUT#${k} ${"lorem ipsum ".repeat(Math.ceil(chars / 12)).slice(0, chars)}`;

/** POSTs and reads the SSE stream: time to the first "Step" text, and the whole text. */
export const stream = async (
  url: string,
  body: unknown,
  mode: string,
  headers: Record<string, string> = {},
) => {
  const t0 = performance.now();
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-proxy-tool-mode": mode, ...headers },
    body: JSON.stringify(body),
  });
  let text = "";
  let ttftMs = Number.NaN;
  const decoder = new TextDecoder();
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    text += decoder.decode(chunk, { stream: true });
    if (Number.isNaN(ttftMs) && text.includes("Step")) ttftMs = performance.now() - t0;
  }
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${text.slice(0, 300)}`);
  return { ttftMs, text, totalMs: performance.now() - t0 };
};

export interface MeteredGateway {
  readonly url: string;
  readonly pid: number;
  /** Bytes the gateway has written to its codex's stdin so far. */
  stdinBytes(): Promise<number>;
  stop(): Promise<void>;
}

/** The built gateway (`apps/proxy/dist/main.js`) as its own process, its codex behind the stdin meter. */
export const startMeteredGateway = async (
  env: NodeJS.ProcessEnv,
  codexCommand: string,
  meterFile: string,
): Promise<MeteredGateway> => {
  await writeFile(meterFile, "0");
  const gatewayMain = fileURLToPath(new URL("../../../../apps/proxy/dist/main.js", import.meta.url));
  const gateway = spawn(process.execPath, [gatewayMain], {
    env: {
      PORT: "0",
      LOG_LEVEL: "info",
      ...env,
      CODEX_BIN: fileURLToPath(new URL("./stdin-meter.js", import.meta.url)),
      METER_CODEX: codexCommand,
      METER_FILE: meterFile,
      PROXY_CODEX_PASS_ENV: "METER_CODEX,METER_FILE",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = "";
    gateway.stdout.on("data", (b: Buffer) => {
      buffered += b.toString();
      const m =
        /"msg":"gateway listening"[^\n]*"url":"([^"]+)"|"url":"([^"]+)"[^\n]*"msg":"gateway listening"/.exec(
          buffered,
        );
      if (m) resolve(m[1] ?? m[2] ?? "");
    });
    gateway.once("exit", (code) => reject(new Error(`gateway exited (${code})`)));
  });
  return {
    url,
    pid: gateway.pid as number,
    stdinBytes: async () => Number(await readFile(meterFile, "utf8")),
    async stop() {
      if (gateway.exitCode !== null) return;
      gateway.kill("SIGTERM");
      await new Promise((r) => gateway.once("exit", r));
    },
  };
};

export const meterIn = (dir: string, name: string) => join(dir, `stdin-bytes-${name}`);
