/** The output item a response is writing (one at a time): its id and its place in `output`. */
interface OpenPart {
  readonly id: string;
  readonly index: number;
}

/** An assistant message or a reasoning summary: one text part, its text so far. */
export interface OpenText extends OpenPart {
  readonly kind: "message" | "reasoning";
  text: string;
}

/** A tool call: its arguments so far (core's JSON; `{"input": …}` for a custom tool). */
export interface OpenCall extends OpenPart {
  readonly kind: "call";
  readonly callId: string;
  readonly name: string;
  readonly namespace: string | undefined;
  readonly custom: boolean;
  args: string;
}

/** A hosted web search the provider is running. */
export interface OpenSearch extends OpenPart {
  readonly kind: "search";
}

export type OpenItem = OpenText | OpenCall | OpenSearch;

/** The fields that place an event in its item. */
export const scope = (item: OpenPart) => ({ item_id: item.id, output_index: item.index });
