import { describe, expect, it } from "vitest";
import { GatewayError } from "../../src/index.js";
import type { TextBackend } from "../../src/ports/text-backend.js";
import { chooseToolMode } from "../../src/turn/native-turn.js";

const tools = {
  tools: [{ name: "f", strict: false }],
  choice: { type: "auto" as const },
  parallel: true,
};

/** A router-like backend: native for `native-model`, prompt for `prompt-model`, unknown otherwise. */
const router: Pick<TextBackend, "name" | "capabilities" | "capabilitiesFor"> = {
  name: "router",
  capabilities: undefined,
  capabilitiesFor: (model) =>
    model === "native-model"
      ? { nativeTools: true }
      : model === "prompt-model"
        ? { nativeTools: false }
        : undefined,
};

describe("per-model capabilities (capabilitiesFor)", () => {
  it("auto picks native or prompt by the requested model", () => {
    expect(chooseToolMode("auto", router, tools, "native-model")).toBe("native");
    expect(chooseToolMode("auto", router, tools, "prompt-model")).toBe("prompt");
  });

  it("native on a prompt-only model fails with native_tools_unavailable", () => {
    const mode = chooseToolMode("native", router, tools, "prompt-model");
    expect(mode).toBeInstanceOf(GatewayError);
    expect(mode).toMatchObject({ code: "native_tools_unavailable", param: "x-proxy-tool-mode" });
  });

  it("falls back to `capabilities` when the backend has no answer for the model", () => {
    const both = { ...router, capabilities: { nativeTools: true } };
    expect(chooseToolMode("auto", both, tools, "other-model")).toBe("native");
    expect(chooseToolMode("auto", both, tools)).toBe("native");
  });
});
