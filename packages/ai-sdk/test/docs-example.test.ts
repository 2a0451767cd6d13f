import { readFileSync } from "node:fs";
import { startScriptedUpstream } from "@proxy/adapter-openai-compatible/testing";
import { afterEach, expect, it, vi } from "vitest";
import { call } from "./support/tool-calling-suite.js";
import { completion } from "./support/upstream.js";

const read = (path: string) => readFileSync(new URL(path, import.meta.url), "utf8");

afterEach(() => {
  vi.restoreAllMocks();
  delete process.env.OPENAI_BASE_URL;
});

it("docs/ai-sdk.md shows examples/weather.ts verbatim", () => {
  expect(read("../../../docs/ai-sdk.md")).toContain(`\`\`\`ts\n${read("../examples/weather.ts")}\`\`\``);
});

it("the docs' example runs its tool loop against an OpenAI-compatible text server", async () => {
  const upstream = await startScriptedUpstream((_request, index) =>
    index === 0 ? completion(call("weather", { city: "Lisbon" })) : completion("Sunny and 21 °C in Lisbon."),
  );
  try {
    process.env.OPENAI_BASE_URL = upstream.url;
    const printed: string[] = [];
    vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
      printed.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "));
    });
    await import("../examples/weather.js");
    expect(printed).toEqual([
      'tool-calls ["weather {\\"city\\":\\"Lisbon\\"}"]',
      "stop []",
      "Sunny and 21 °C in Lisbon.",
    ]);
    expect(upstream.requests).toHaveLength(2);
  } finally {
    await upstream.close();
  }
});
