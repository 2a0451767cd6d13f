import { type AssistantEvent, citedLinks, customCallInput } from "@proxy/core";
import type { OutputMode } from "@proxy/core/gateway";
import { toolCallEcho } from "@proxy/http-surface/openai-wire";

export type ToolCallDelta =
  | {
      readonly index: number;
      readonly id?: string;
      readonly type?: "function";
      readonly function: { readonly name?: string; readonly arguments: string };
    }
  /** A call to a custom (freeform) tool: `input` is raw text, sent whole when the call ends. */
  | {
      readonly index: number;
      readonly id?: string;
      readonly type?: "custom";
      readonly custom: { readonly name?: string; readonly input: string };
    };

/** A page the answer cites after a hosted web search (derived from its link: docs/hosted-tools.md). */
export interface UrlCitationAnnotation {
  readonly type: "url_citation";
  readonly url_citation: {
    readonly start_index: number;
    readonly end_index: number;
    readonly url: string;
    readonly title: string;
  };
}

/** One `choices[0].delta` of a Chat Completions chunk. */
export interface ChatDelta {
  /** The message's citations, in one delta at the end of an answer that searched the web. */
  readonly annotations?: ReadonlyArray<UrlCitationAnnotation>;
  readonly role?: "assistant";
  readonly content?: string;
  /** Reasoning text, under the field vLLM/DeepSeek/LiteLLM use; clients that do not know it ignore it. */
  readonly reasoning_content?: string;
  readonly tool_calls?: ReadonlyArray<ToolCallDelta>;
  /** Legacy `functions` requests only. */
  readonly function_call?: { readonly name?: string; readonly arguments: string };
}

export interface DeltaEncoderOptions {
  readonly outputMode: OutputMode;
  readonly legacyFunctions: boolean;
  /** Names of the request's custom (freeform) tools: their calls are `type:"custom"` tool calls. */
  readonly customTools?: ReadonlySet<string> | undefined;
  /** The request asked for the hosted web search (`web_search_options`): the content is kept for its citations. */
  readonly webSearch?: boolean | undefined;
}

/**
 * Turns one turn's assistant events into Chat deltas: the single translation both the SSE stream and
 * the non-stream message (folded from the same deltas) are built from. Names, ids and `type` go in a
 * call's first delta only (Copilot concatenates repeated names); later deltas carry `index` + argument
 * fragments. In `obsidian-xml` mode each finished call is also written as `<use_tool>` content text.
 */
export const createDeltaEncoder = (options: DeltaEncoderOptions) => {
  const argumentLengths = new Map<number, number>();
  const customCalls = new Set<number>();
  let lastContent = "";
  let searched = false;
  /** All content so far, kept only when the request asked for search (citation offsets are into it). */
  let all = "";

  const content = (text: string): ChatDelta => {
    lastContent = text;
    if (options.webSearch) all += text;
    return { content: text };
  };

  const callDelta = (index: number, args: string): ChatDelta =>
    options.legacyFunctions
      ? { function_call: { arguments: args } }
      : { tool_calls: [{ index, function: { arguments: args } }] };

  return {
    /** A text delta the caller sends itself (a content chunk of `text`); kept for what follows it. */
    sentText(text: string): void {
      if (text !== "") lastContent = text;
      if (options.webSearch) all += text;
    },
    /** The answer's `url_citation` annotations once it searched the web (none otherwise). */
    annotations(): ReadonlyArray<UrlCitationAnnotation> {
      if (!searched) return [];
      return citedLinks(all).map((l) => ({
        type: "url_citation",
        url_citation: { start_index: l.start, end_index: l.end, url: l.url, title: l.title },
      }));
    },
    encode(event: AssistantEvent): ChatDelta[] {
      switch (event.type) {
        case "text-delta":
          return event.delta === "" ? [] : [content(event.delta)];
        case "reasoning-delta":
          return event.delta === "" ? [] : [{ reasoning_content: event.delta }];
        case "tool-call-start":
          argumentLengths.set(event.index, 0);
          if (!options.legacyFunctions && options.customTools?.has(event.name) === true) {
            customCalls.add(event.index);
            const custom = { name: event.name, input: "" };
            return [{ tool_calls: [{ index: event.index, id: event.callId, type: "custom", custom }] }];
          }
          return options.legacyFunctions
            ? [{ function_call: { name: event.name, arguments: "" } }]
            : [
                {
                  tool_calls: [
                    {
                      index: event.index,
                      id: event.callId,
                      type: "function",
                      function: { name: event.name, arguments: "" },
                    },
                  ],
                },
              ];
        case "tool-call-delta":
          // A custom call's deltas are JSON of `{"input": …}`; its raw input goes out at the end.
          if (event.delta === "" || customCalls.has(event.index)) return [];
          argumentLengths.set(event.index, (argumentLengths.get(event.index) ?? 0) + event.delta.length);
          return [callDelta(event.index, event.delta)];
        case "tool-call-end": {
          // A parameterless call must still carry `{}` (vllm#28806): clients JSON.parse the arguments.
          const out: ChatDelta[] = customCalls.has(event.index)
            ? [{ tool_calls: [{ index: event.index, custom: { input: customCallInput(event.arguments) } }] }]
            : argumentLengths.get(event.index) === 0
              ? [callDelta(event.index, "{}")]
              : [];
          const echo = toolCallEcho(options.outputMode, event.name, event.arguments);
          if (echo !== undefined) {
            // On its own lines within the content.
            const separator = lastContent === "" || lastContent.endsWith("\n") ? "" : "\n";
            out.push(content(`${separator}${echo}\n`));
          }
          return out;
        }
        case "web-search":
          searched = true;
          return [];
        default:
          return [];
      }
    },
  };
};
