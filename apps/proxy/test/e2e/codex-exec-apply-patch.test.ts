import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCodexExec } from "./codex-exec-client.js";
import { lastUserText, type RecordedRequest, startE2E } from "./e2e-gateway.js";

// codex exec (`-m gpt-5.5`, whose catalog entry offers `apply_patch` as a custom tool with a lark
// grammar) is the client and applies the patch itself, in its own work dir; the gateway's backend
// is a second, sealed codex app-server talking to the scripted model, which never touches files.

const PATCH = [
  "*** Begin Patch",
  "*** Add File: hello.txt",
  '+hello "from" the gateway\\',
  "*** End Patch",
].join("\n");
const PATCHED = 'hello "from" the gateway\\\n';

const upstreamText = (request: RecordedRequest) => JSON.stringify(request.body);

describe("codex exec apply_patch (custom tool) through the gateway, prompt mode", {
  timeout: 180_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  const dirs: string[] = [];
  const model = (request: RecordedRequest) =>
    /\[function_call_output call_id="call_\w+" output="[^\]]*hello\.txt/.test(lastUserText(request))
      ? { chunks: ["Patch ", "applied."] }
      : { chunks: ["Adding it. ", `<custom_tool_call>apply_patch\n${PATCH}\n</custom_tool_call>`] };
  beforeAll(async () => {
    e2e = await startE2E(model);
  }, 60_000);
  afterAll(async () => {
    await e2e?.close();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it("the raw block becomes a custom_tool_call that codex exec applies in its own dir, and the output comes back", async () => {
    const work = await mkdtemp(join(tmpdir(), "exec-work-"));
    dirs.push(work);
    const run = await runCodexExec(e2e.url, work, dirs, { model: "gpt-5.5", prompt: "add hello.txt" });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("Patch applied.");
    expect(await readFile(join(work, "hello.txt"), "utf8")).toBe(PATCHED);
    // codex exec offered apply_patch as a custom tool with its grammar: the manifest teaches it so.
    const first = upstreamText(e2e.provider.requests[0]!);
    expect(first).toContain("apply_patch (custom: free-text input)");
    expect(first).toContain("input grammar (lark; the input must match it exactly)");
    expect(first).toContain("<custom_tool_call>tool_name");
    // The follow-up carried codex exec's custom_tool_call_output; the echoed call is the raw block.
    const followUp = e2e.provider.requests.at(-1)!;
    expect(lastUserText(followUp)).toMatch(
      /\[function_call_output call_id="call_\w+" output="[^"]*hello\.txt/,
    );
    expect(upstreamText(followUp)).toContain(
      JSON.stringify(`<custom_tool_call>apply_patch\n${PATCH}`).slice(1, -1),
    );
  });
});

describe("codex exec apply_patch (custom tool) through the gateway, native mode", {
  timeout: 180_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  const dirs: string[] = [];
  const nativeModel = (request: RecordedRequest) => {
    const input = (request.body.input ?? []) as Array<{ type?: string; output?: unknown }>;
    if (input.some((i) => i.type === "function_call_output" && String(i.output).includes("hello.txt")))
      return { chunks: ["Native ", "patch applied."] };
    const tools = (request.body.tools ?? []) as Array<{ name?: string }>;
    const name = tools.map((t) => t.name).find((n) => n?.startsWith("apply_patch")) ?? "missing";
    return {
      items: [
        {
          type: "function_call",
          id: "fc_native_patch",
          call_id: "call_native_patch",
          name,
          arguments: JSON.stringify({ input: PATCH }),
        },
      ],
    };
  };
  beforeAll(async () => {
    e2e = await startE2E(nativeModel, { PROXY_TOOL_MODE: "native" });
  }, 60_000);
  afterAll(async () => {
    await e2e?.close();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it("offers apply_patch as a function of one string `input` and returns the call as a custom call", async () => {
    const work = await mkdtemp(join(tmpdir(), "exec-work-"));
    dirs.push(work);
    const run = await runCodexExec(e2e.url, work, dirs, { model: "gpt-5.5", prompt: "add hello.txt" });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("Native patch applied.");
    expect(await readFile(join(work, "hello.txt"), "utf8")).toBe(PATCHED);
    expect(await readdir(work)).toEqual(["hello.txt"]);
    const first = e2e.provider.requests[0]!;
    const tool = (
      (first.body.tools ?? []) as Array<{ name?: string; parameters?: unknown; description?: string }>
    ).find((t) => t.name?.startsWith("apply_patch"));
    expect(tool?.parameters).toMatchObject({ type: "object", required: ["input"] });
    expect(tool?.description).toContain("lark grammar");
    const followUp = e2e.provider.requests.at(-1)!;
    const items = (followUp.body.input ?? []) as Array<{
      type?: string;
      call_id?: string;
      arguments?: string;
    }>;
    expect(items.find((i) => i.type === "function_call")).toMatchObject({
      call_id: "call_native_patch",
      arguments: JSON.stringify({ input: PATCH }),
    });
    expect(items.at(-1)).toMatchObject({ type: "function_call_output", call_id: "call_native_patch" });
  });
});
