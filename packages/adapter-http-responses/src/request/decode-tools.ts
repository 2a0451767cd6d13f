import { findToolPolicyProblem, type ToolPolicy } from "@proxy/core";
import {
  customDefinitionAt,
  type DecodedTool,
  decodeOpenAiToolChoice,
  functionToolAt,
  openAiToolPolicyError,
  parallelToolCallsOf,
  toolEntryAt,
} from "@proxy/http-surface/openai-wire";
import type { ToolSource } from "./map-input.js";

/**
 * The tools a Responses request offers, gathered from `tools`, from `namespace` tools and from
 * codex's `additional_tools` input items: `function` tools (either wire shape) and `custom`
 * (freeform) tools. Hosted tools (`web_search`, `tool_search`, `file_search`, `mcp`, …) are set
 * aside: accepted, documented as unsupported, never rendered.
 */
export interface ResponsesTools {
  readonly policy: ToolPolicy;
  /** Tool name → namespace, for tools exposed from inside a `namespace` tool. */
  readonly namespaces: ReadonlyMap<string, string>;
}

/** Tool choices naming hosted tools we do not run; degrade to `auto` rather than fail the client. */
const HOSTED_CHOICES = new Set([
  "web_search",
  "web_search_preview",
  "web_search_preview_2025_03_11",
  "file_search",
  "computer_use_preview",
  "computer_use",
  "image_generation",
  "code_interpreter",
  "mcp",
  "shell",
  "apply_patch",
  "tool_search",
]);

const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u);

const nameOf = (tool: Record<string, unknown>): unknown =>
  tool.name ?? (isRecord(tool.function) ? tool.function.name : undefined);

const isCallable = (tool: Record<string, unknown>): boolean =>
  tool.type === "function" || tool.type === "custom" || (tool.type === undefined && isRecord(tool.function));

/** Every tool the request offers, decoded, with the path each came from. */
const collectTools = (
  topLevel: ReadonlyArray<unknown>,
  extra: ReadonlyArray<ToolSource>,
): { decoded: DecodedTool[]; namespaces: Map<string, string> } => {
  const decoded: DecodedTool[] = [];
  const namespaces = new Map<string, string>();
  const seen = new Set<unknown>();

  const add = (tool: unknown, path: string, namespace: string | undefined, dedup: boolean): void => {
    const name = isRecord(tool) ? nameOf(tool) : undefined;
    // Tools from namespaces and input carriers may repeat a top-level tool: first one wins.
    if (dedup && seen.has(name)) return;
    seen.add(name);
    // Non-objects and objects without a `type` are reported here with their path.
    const { type, fields } = toolEntryAt(tool, path);
    decoded.push(type === "custom" ? customDefinitionAt(fields, path) : functionToolAt(fields, path));
    if (namespace !== undefined && typeof name === "string") namespaces.set(name, namespace);
  };

  const walk = (tools: ReadonlyArray<unknown>, base: string, fromCarrier: boolean): void => {
    for (const [i, tool] of tools.entries()) {
      const path = `${base}[${i}]`;
      if (!isRecord(tool)) add(tool, path, undefined, false);
      else if (isCallable(tool)) add(tool, path, undefined, fromCarrier);
      else if (tool.type === "namespace" && Array.isArray(tool.tools)) {
        const namespace = typeof tool.name === "string" ? tool.name : undefined;
        for (const [j, inner] of tool.tools.entries())
          if (isRecord(inner) && (inner.type === "function" || inner.type === "custom"))
            add(inner, `${path}.tools[${j}]`, namespace, true);
      }
    }
  };

  walk(topLevel, "tools", false);
  for (const source of extra) walk(source.tools, source.path, true);
  return { decoded, namespaces };
};

/**
 * `tools`, `additional_tools` carriers, `tool_choice` and `parallel_tool_calls` → core's canonical
 * policy; errors name the path in the Responses request (`input[0].tools[2].name`, `tool_choice`).
 */
export const decodeResponsesTools = (
  body: {
    readonly tools?: ReadonlyArray<unknown> | null | undefined;
    readonly tool_choice?: unknown;
    readonly parallel_tool_calls?: unknown;
  },
  extra: ReadonlyArray<ToolSource>,
): ResponsesTools => {
  const { decoded, namespaces } = collectTools(body.tools ?? [], extra);
  const { choice, allowed } =
    body.tool_choice === undefined || body.tool_choice === null
      ? { choice: { type: "auto" } as const, allowed: undefined }
      : decodeOpenAiToolChoice(body.tool_choice, HOSTED_CHOICES);
  const tools = decoded.map((d) => d.spec);
  const problem = findToolPolicyProblem({ tools, choice, parallel: true, allowed });
  if (problem !== undefined) throw openAiToolPolicyError(problem, decoded, "tool_choice");
  const parallel = parallelToolCallsOf(body.parallel_tool_calls);
  return {
    policy: {
      tools,
      choice,
      parallel: parallel !== false,
      parallelDefaulted: parallel === undefined,
      allowed,
    },
    namespaces,
  };
};
