import { type CitedLink, customCallInput, type WebSearchAction } from "@proxy/core";

/**
 * The Responses output items we emit, each rendered by exactly one function used by both the
 * streaming and the non-streaming paths.
 */

export type ItemStatus = "in_progress" | "completed" | "incomplete";

/** A page the text cites (derived from the answer's link: see docs/hosted-tools.md). */
export interface UrlCitation {
  readonly type: "url_citation";
  readonly start_index: number;
  readonly end_index: number;
  readonly url: string;
  readonly title: string;
}

export interface OutputText {
  readonly type: "output_text";
  readonly text: string;
  readonly annotations: ReadonlyArray<UrlCitation>;
  readonly logprobs: [];
}

/** A hosted web search the model provider ran: `action` (with the query) once it is done. */
export interface WebSearchCallOutputItem {
  readonly type: "web_search_call";
  readonly id: string;
  readonly status: "in_progress" | "searching" | "completed" | "failed";
  readonly action?: WebSearchAction;
}

export interface MessageOutputItem {
  readonly type: "message";
  readonly id: string;
  readonly status: ItemStatus;
  readonly role: "assistant";
  readonly content: ReadonlyArray<OutputText>;
}

export interface FunctionCallOutputItem {
  readonly type: "function_call";
  readonly id: string;
  readonly call_id: string;
  readonly name: string;
  readonly arguments: string;
  readonly status: ItemStatus;
  readonly namespace?: string;
}

/** A call to a custom (freeform) tool: `input` is the raw text, not JSON. */
export interface CustomToolCallOutputItem {
  readonly type: "custom_tool_call";
  readonly id: string;
  readonly call_id: string;
  readonly name: string;
  readonly input: string;
  readonly status: ItemStatus;
  readonly namespace?: string;
}

export interface SummaryText {
  readonly type: "summary_text";
  readonly text: string;
}

export interface ReasoningOutputItem {
  readonly type: "reasoning";
  readonly id: string;
  readonly summary: ReadonlyArray<SummaryText>;
}

export interface CompactionOutputItem {
  readonly type: "compaction";
  readonly id: string;
  readonly encrypted_content: string;
}

export type OutputItem =
  | MessageOutputItem
  | FunctionCallOutputItem
  | CustomToolCallOutputItem
  | ReasoningOutputItem
  | CompactionOutputItem
  | WebSearchCallOutputItem;

export const outputText = (text: string, annotations: ReadonlyArray<UrlCitation> = []): OutputText => ({
  type: "output_text",
  text,
  annotations,
  logprobs: [],
});

export const urlCitation = (link: CitedLink): UrlCitation => ({
  type: "url_citation",
  start_index: link.start,
  end_index: link.end,
  url: link.url,
  title: link.title,
});

export const toMessageItem = (
  id: string,
  text: string | undefined,
  status: ItemStatus,
  annotations: ReadonlyArray<UrlCitation> = [],
): MessageOutputItem => ({
  type: "message",
  id,
  status,
  role: "assistant",
  content: text === undefined ? [] : [outputText(text, annotations)],
});

/** A call as the encoder holds it; `arguments` is core's JSON string (`{"input": …}` for a custom call). */
export interface CallFields {
  readonly id: string;
  readonly callId: string;
  readonly name: string;
  readonly arguments: string;
  readonly status: ItemStatus;
  readonly namespace?: string | undefined;
}

const itemFields = (call: CallFields) => ({
  id: call.id,
  call_id: call.callId,
  name: call.name,
});

/** `id` (fc_…) and `call_id` (call_…) always both present; `arguments` always a JSON string. */
export const toFunctionCallItem = (call: CallFields): FunctionCallOutputItem => ({
  type: "function_call",
  ...itemFields(call),
  arguments: call.arguments,
  status: call.status,
  ...(call.namespace === undefined ? {} : { namespace: call.namespace }),
});

/** A call item of either kind: `custom_tool_call` (raw `input`) for a custom tool, else `function_call`. */
export const toCallItem = (
  call: CallFields & { readonly custom: boolean },
): FunctionCallOutputItem | CustomToolCallOutputItem =>
  call.custom
    ? {
        type: "custom_tool_call",
        ...itemFields(call),
        input: customCallInput(call.arguments),
        status: call.status,
        ...(call.namespace === undefined ? {} : { namespace: call.namespace }),
      }
    : toFunctionCallItem(call);

export const summaryText = (text: string): SummaryText => ({ type: "summary_text", text });

export const toReasoningItem = (id: string, text: string | undefined): ReasoningOutputItem => ({
  type: "reasoning",
  id,
  summary: text === undefined ? [] : [summaryText(text)],
});

/** Our compaction "blob" is the summary text itself: opaque to clients, readable by us when echoed. */
export const toCompactionItem = (id: string, summary: string): CompactionOutputItem => ({
  type: "compaction",
  id,
  encrypted_content: summary,
});
