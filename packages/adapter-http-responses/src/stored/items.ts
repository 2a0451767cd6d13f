import type { IdGenerator, IdPrefix } from "@proxy/core";
import type { StoredItem } from "@proxy/core/gateway";

const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u);

/** Items that steer one request and are not part of the conversation. */
const NOT_KEPT = new Set(["additional_tools", "compaction_trigger"]);

const PREFIX: Readonly<Record<string, IdPrefix>> = {
  message: "msg",
  function_call: "fc",
  reasoning: "rs",
  compaction: "cmp",
};

/** Listed as OpenAI lists them: message text always as content parts. */
const contentParts = (item: Record<string, unknown>): unknown =>
  typeof item.content === "string"
    ? [{ type: item.role === "assistant" ? "output_text" : "input_text", text: item.content }]
    : item.content;

/**
 * Raw input items as they are stored (and listed by `input_items`): a string input becomes one
 * user message, messages get their `type`, every item an `id`; steering items are left out.
 */
export const toStoredItems = (
  input: unknown,
  ids: IdGenerator,
  resolve: (id: string) => unknown,
): StoredItem[] => {
  const raw: ReadonlyArray<unknown> =
    typeof input === "string"
      ? [{ type: "message", role: "user", content: [{ type: "input_text", text: input }] }]
      : Array.isArray(input)
        ? input
        : [];
  return raw.flatMap((value): StoredItem[] => {
    if (!isRecord(value)) return [];
    let item: Record<string, unknown> = value;
    if (item.type === "item_reference") {
      const referenced = typeof item.id === "string" ? resolve(item.id) : undefined;
      if (!isRecord(referenced)) return [];
      item = referenced;
    }
    const type = typeof item.type === "string" ? item.type : "role" in item ? "message" : undefined;
    if (type === undefined || NOT_KEPT.has(type)) return [];
    const id = typeof item.id === "string" && item.id !== "" ? item.id : ids.next(PREFIX[type] ?? "item");
    return [
      { id, body: { ...item, type, id, ...(type === "message" ? { content: contentParts(item) } : {}) } },
    ];
  });
};

/** `item_reference` ids in a raw `input` (so they can be fetched before the synchronous decode). */
export const referencedIds = (input: unknown): string[] =>
  Array.isArray(input)
    ? input.flatMap((item) =>
        isRecord(item) && item.type === "item_reference" && typeof item.id === "string" ? [item.id] : [],
      )
    : [];
