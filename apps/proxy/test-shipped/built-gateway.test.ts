import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { type Content, GoogleGenAI } from "@google/genai";
import {
  type CodexHome,
  makeCodexHome,
  type RecordedRequest,
  type ScriptedModelProvider,
  type ScriptedResponse,
  startScriptedModelProvider,
} from "@proxy/adapter-codex-appserver/testing";
import { startScriptedUpstream } from "@proxy/adapter-openai-compatible/testing";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nativeModel, toolsOf } from "../test/e2e/native-support.js";
import { lastUserText, toolCallText, transcriptOf } from "../test/support/scripted-text.js";
import { BUILT_BIN, type SpawnedGateway, spawnGateway } from "../test/support/spawn-gateway.js";
import { processTable, serverEnv, stillRunningAfter } from "./support.js";

const VERSION = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
).version;
const MODEL = "e2e-model";
const ASK = "What's the weather in Paris?";
const RESULT = "Sunny, 24C";
const PARAMETERS = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
const PROMPT_RESULT = /\[function_call_output call_id="[^"]*" output=("(?:[^"\\]|\\.)*")\]/;

/**
 * Behind codex: native turns (the client's tools reached the model as codex dynamic tools) get the
 * native suite's model; prompt turns write a `<tool_call>` block, then answer from the result.
 */
const codexModel = (request: RecordedRequest): ScriptedResponse => {
  if (toolsOf(request).some((t) => t.name === "get_weather")) return nativeModel(request);
  const ask = lastUserText(request);
  const result = PROMPT_RESULT.exec(ask)?.[1];
  if (result) return { chunks: ["The weather: ", JSON.parse(result) as string] };
  if (/weather/i.test(ask))
    return { chunks: ["Let me check. ", toolCallText("get_weather", { city: "Paris" })] };
  return { text: "Hello from the scripted model." };
};

describe("the built gateway, started as the README starts it (plain node, the bin, no source condition)", () => {
  let provider: ScriptedModelProvider;
  let home: CodexHome;
  let upstream: Awaited<ReturnType<typeof startScriptedUpstream>>;
  let cwd: string;
  let gateway: SpawnedGateway;
  let openai: OpenAI;

  beforeAll(async () => {
    provider = await startScriptedModelProvider(codexModel);
    home = await makeCodexHome(provider.url);
    upstream = await startScriptedUpstream(() => ({
      chunks: ["Looking. ", toolCallText("get_weather", { city: "Oslo" })],
    }));
    cwd = await mkdtemp(join(tmpdir(), "gateway-cwd-"));
    gateway = await spawnGateway(
      {
        ...serverEnv(),
        CODEX_HOME: home.path,
        PROXY_MODELS: JSON.stringify([
          { id: MODEL, backend: "codex" },
          {
            id: "llama-local",
            backend: "openai-compatible",
            baseUrl: upstream.url,
            upstreamModel: "llama-3.1-8b",
          },
        ]),
      },
      // The runner's environment stays out: nothing it sets may change how the bin resolves.
      { command: [process.execPath, BUILT_BIN], cwd, detached: true, inheritEnv: false },
    );
    openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "unused", maxRetries: 0 });
  });

  afterAll(async () => {
    if (gateway?.child.pid && gateway.child.exitCode === null) process.kill(-gateway.child.pid, "SIGKILL");
    await provider?.close();
    await upstream?.close();
    await home?.cleanup();
    if (cwd) await rm(cwd, { recursive: true, force: true });
  });

  /** The model saw the client's tools the way the mode says: as codex tools, or taught in the prompt. */
  const expectMode = (mode: string, request: RecordedRequest | undefined) => {
    if (!request) throw new Error("codex sent nothing upstream");
    expect(toolsOf(request).some((t) => t.name === "get_weather")).toBe(mode === "native");
    if (mode === "prompt") expect(transcriptOf(request)).toContain("<tool_call>");
  };

  it("the bin prints its version and its help with plain node", () => {
    const version = spawnSync(process.execPath, [BUILT_BIN, "--version"], { encoding: "utf8" });
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toBe(VERSION);
    const help = spawnSync(process.execPath, [BUILT_BIN, "--help"], { encoding: "utf8" });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("Usage: codex-tool-gateway");
  });

  describe.each(["native", "prompt"])("a tool round trip on each surface, %s tool mode", (mode) => {
    const headers = { "x-proxy-tool-mode": mode };

    it("chat completions (openai SDK)", async () => {
      const tools = [
        { type: "function" as const, function: { name: "get_weather", parameters: PARAMETERS } },
      ];
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: ASK }];
      const first = await openai.chat.completions.create({ model: MODEL, messages, tools }, { headers });
      expectMode(mode, provider.requests.at(-1));
      const call = first.choices[0]?.message.tool_calls?.[0];
      if (call?.type !== "function") throw new Error(`no tool call in ${JSON.stringify(first)}`);
      expect([call.function.name, JSON.parse(call.function.arguments)]).toEqual([
        "get_weather",
        { city: "Paris" },
      ]);
      messages.push(first.choices[0]!.message, { role: "tool", tool_call_id: call.id, content: RESULT });
      const second = await openai.chat.completions.create({ model: MODEL, messages, tools }, { headers });
      expect(second.choices[0]?.message.content).toBe(`The weather: ${RESULT}`);
    });

    it("responses (openai SDK): the result goes back by previous_response_id, stored in the default SQLite file", async () => {
      const tools = [
        { type: "function" as const, name: "get_weather", parameters: PARAMETERS, strict: false },
      ];
      const first = await openai.responses.create({ model: MODEL, input: ASK, tools }, { headers });
      expectMode(mode, provider.requests.at(-1));
      const call = first.output.find((i) => i.type === "function_call");
      if (call?.type !== "function_call")
        throw new Error(`no function_call in ${JSON.stringify(first.output)}`);
      expect(JSON.parse(call.arguments)).toEqual({ city: "Paris" });
      const second = await openai.responses.create(
        {
          model: MODEL,
          previous_response_id: first.id,
          input: [{ type: "function_call_output", call_id: call.call_id, output: RESULT }],
          tools,
        },
        { headers },
      );
      expect(second.output_text).toBe(`The weather: ${RESULT}`);
      // The history came from the store: the client sent only the output.
      expect(transcriptOf(provider.requests.at(-1)!)).toContain(ASK);
      expect((await openai.responses.retrieve(second.id)).previous_response_id).toBe(first.id);
      expect(existsSync(join(cwd, "data", "gateway.sqlite"))).toBe(true);
    });

    it("messages (Anthropic SDK)", async () => {
      const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: "unused", maxRetries: 0 });
      const tools = [{ name: "get_weather", input_schema: PARAMETERS as Anthropic.Tool.InputSchema }];
      const messages: Anthropic.MessageParam[] = [{ role: "user", content: ASK }];
      const first = await anthropic.messages.create(
        { model: MODEL, max_tokens: 1024, messages, tools },
        { headers },
      );
      expectMode(mode, provider.requests.at(-1));
      const call = first.content.find((b) => b.type === "tool_use");
      if (call?.type !== "tool_use") throw new Error(`no tool_use in ${JSON.stringify(first)}`);
      expect([call.name, call.input]).toEqual(["get_weather", { city: "Paris" }]);
      messages.push(
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: RESULT }] },
      );
      const second = await anthropic.messages.create(
        { model: MODEL, max_tokens: 1024, messages, tools },
        { headers },
      );
      expect(second.content).toEqual([{ type: "text", text: `The weather: ${RESULT}` }]);
    });

    it("generateContent (@google/genai)", async () => {
      const ai = new GoogleGenAI({ apiKey: "unused", httpOptions: { baseUrl: gateway.url, headers } });
      const config = {
        tools: [{ functionDeclarations: [{ name: "get_weather", parametersJsonSchema: PARAMETERS }] }],
      };
      const first = await ai.models.generateContent({ model: MODEL, contents: ASK, config });
      expectMode(mode, provider.requests.at(-1));
      const call = first.functionCalls?.[0];
      expect([call?.name, call?.args]).toEqual(["get_weather", { city: "Paris" }]);
      const second = await ai.models.generateContent({
        model: MODEL,
        config,
        contents: <Content[]>[
          { role: "user", parts: [{ text: ASK }] },
          { role: "model", parts: first.candidates?.[0]?.content?.parts ?? [] },
          {
            role: "user",
            parts: [
              { functionResponse: { id: call?.id, name: "get_weather", response: { output: RESULT } } },
            ],
          },
        ],
      });
      expect(second.text).toContain(`The weather: `);
      expect(second.text).toContain(RESULT);
    });
  });

  it("an OpenAI-compatible route answers from its upstream, not from codex", async () => {
    const before = provider.requests.length;
    const res = await openai.chat.completions.create({
      model: "llama-local",
      messages: [{ role: "user", content: "What's the weather in Oslo?" }],
      tools: [{ type: "function", function: { name: "get_weather", parameters: PARAMETERS } }],
    });
    const call = res.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === "function" && [call.function.name, JSON.parse(call.function.arguments)]).toEqual([
      "get_weather",
      { city: "Oslo" },
    ]);
    expect(upstream.requests.at(-1)?.body.model).toBe("llama-3.1-8b");
    expect(provider.requests.length).toBe(before);
  });

  it("SIGTERM: the gateway drains, stops its codex children and exits 0", async () => {
    const codexPids = gateway.lines
      .filter((l) => l.msg === "codex app-server ready")
      .map((l) => Number(l.pid));
    expect(codexPids.length).toBeGreaterThan(0);
    const running = processTable();
    expect(codexPids.every((pid) => running.has(pid))).toBe(true);
    gateway.child.kill("SIGTERM");
    expect(await gateway.exited).toBe(0);
    expect(gateway.lines.map((l) => l.msg)).toContain("stopped");
    expect(await stillRunningAfter(codexPids, 5_000)).toEqual([]);
  });
});
