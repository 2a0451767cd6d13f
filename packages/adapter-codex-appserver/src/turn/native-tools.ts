import { asNativeFunction, type BackendRequest, type ToolPolicy } from "@proxy/core";
import { createToolNames, type ToolNames } from "./tool-names.js";

/** The tool names of a native turn (offered tools, then those named in history); none for a prompt turn. */
export const nativeToolNames = (
  request: Pick<BackendRequest, "tools" | "history">,
): ToolNames | undefined => {
  if (request.tools === undefined) return undefined;
  const historyNames = request.history.flatMap((m) =>
    "toolCalls" in m ? m.toolCalls.map((c) => c.name) : [],
  );
  return createToolNames(
    request.tools.tools.map((t) => t.name),
    historyNames,
  );
};

/**
 * The experimental `thread/start` fields of a native turn: the client's tools as dynamic tools
 * (description and schema kept, names mapped for codex; codex sends them upstream as plain
 * function tools, `strict` always false — the gateway validates strict tools itself), and raw
 * events, which carry each call's exact `call_id` and `arguments` and mark the end of each model
 * response. Under tool_choice "none" no tool is offered at all.
 */
export const nativeThreadParams = (policy: ToolPolicy, names: ToolNames) => ({
  experimentalRawEvents: true,
  dynamicTools:
    policy.choice.type === "none"
      ? []
      : policy.tools.map((tool) => {
          // A custom tool is a function of one string `input`; its call comes back as `{"input": …}`.
          const fn = asNativeFunction(tool);
          return {
            type: "function",
            name: names.toCodex(fn.name),
            description: fn.description ?? "",
            inputSchema: fn.parameters,
          };
        }),
});
