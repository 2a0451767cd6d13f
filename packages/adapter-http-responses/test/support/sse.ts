import { createParser } from "eventsource-parser";

export interface SseFrame {
  readonly event: string | undefined;
  readonly data: Record<string, unknown> & { type: string; sequence_number: number };
}

/** Parse a raw `text/event-stream` body into frames (eventsource-parser, not a hand-rolled split). */
export const parseSse = (text: string): SseFrame[] => {
  const frames: SseFrame[] = [];
  const parser = createParser({
    onEvent: (message) => frames.push({ event: message.event, data: JSON.parse(message.data) }),
  });
  parser.feed(text);
  return frames;
};

type Json = Record<string, unknown>;
type Open = { id: string; index: number; type: string; text: string; args: string; added: Json };

const TERMINAL = new Set(["response.completed", "response.failed", "response.incomplete"]);
const ITEM_EVENT_TYPES: Record<string, string> = {
  "response.content_part.added": "message",
  "response.content_part.done": "message",
  "response.output_text.delta": "message",
  "response.output_text.done": "message",
  "response.function_call_arguments.delta": "function_call",
  "response.function_call_arguments.done": "function_call",
  "response.reasoning_summary_part.added": "reasoning",
  "response.reasoning_summary_part.done": "reasoning",
  "response.reasoning_summary_text.delta": "reasoning",
  "response.reasoning_summary_text.done": "reasoning",
};
/** The documented fields of each item-scoped event (no top-level call_id anywhere: it lives on the item). */
const FIELDS: Record<string, string[]> = {
  "response.output_item.added": ["output_index", "item"],
  "response.output_item.done": ["output_index", "item"],
  "response.content_part.added": ["item_id", "output_index", "content_index", "part"],
  "response.content_part.done": ["item_id", "output_index", "content_index", "part"],
  "response.output_text.delta": ["item_id", "output_index", "content_index", "delta", "logprobs"],
  "response.output_text.done": ["item_id", "output_index", "content_index", "text", "logprobs"],
  "response.function_call_arguments.delta": ["item_id", "output_index", "delta"],
  "response.function_call_arguments.done": ["item_id", "output_index", "name", "arguments"],
  "response.reasoning_summary_part.added": ["item_id", "output_index", "summary_index", "part"],
  "response.reasoning_summary_part.done": ["item_id", "output_index", "summary_index", "part"],
  "response.reasoning_summary_text.delta": ["item_id", "output_index", "summary_index", "delta"],
  "response.reasoning_summary_text.done": ["item_id", "output_index", "summary_index", "text"],
  "response.created": ["response"],
  "response.in_progress": ["response"],
  "response.completed": ["response"],
  "response.failed": ["response"],
  "response.incomplete": ["response"],
};

/**
 * Checks a Responses event stream against the ordering rules strict clients enforce
 * (wire-contract §5.4/§5.6, codex-app-server §3.3). Returns every violation found; [] means valid.
 */
export const validateResponsesStream = (frames: ReadonlyArray<SseFrame>): string[] => {
  const errors: string[] = [];
  const fail = (i: number, message: string) => errors.push(`#${i} ${frames[i]?.data.type}: ${message}`);
  const done: Json[] = [];
  let open: Open | undefined;
  let added = 0;
  let phase: "text" | "part-done" | "text-done" | "summary-done" | "args-done" | "none" = "none";

  for (const [i, frame] of frames.entries()) {
    const ev = frame.data;
    if (frame.event !== ev.type) fail(i, `event line '${frame.event}' differs from data.type`);
    if (ev.sequence_number !== i) fail(i, `sequence_number ${ev.sequence_number}, expected ${i}`);
    const fields = FIELDS[ev.type];
    if (fields === undefined) {
      fail(i, "undocumented event type");
      continue;
    }
    const keys = Object.keys(ev)
      .filter((k) => k !== "type" && k !== "sequence_number")
      .sort();
    if (keys.join() !== [...fields].sort().join()) fail(i, `fields [${keys}] instead of [${fields}]`);
    if (i === 0 && ev.type !== "response.created") fail(i, "first event must be response.created");
    if (i === 1 && ev.type !== "response.in_progress") fail(i, "second event must be response.in_progress");
    if (TERMINAL.has(ev.type) && i !== frames.length - 1) fail(i, "terminal event before the end");
    if (i === frames.length - 1 && !TERMINAL.has(ev.type))
      fail(i, "stream does not end with a terminal event");

    const response = ev.response as Json | undefined;
    if (ev.type === "response.created" || ev.type === "response.in_progress") {
      if (response?.status !== "in_progress") fail(i, "status must be in_progress");
      if (!Array.isArray(response?.output) || (response.output as unknown[]).length !== 0)
        fail(i, "output must be []");
    }
    if (TERMINAL.has(ev.type)) {
      if (open !== undefined) fail(i, `item ${open.id} still open`);
      if (JSON.stringify(response?.output) !== JSON.stringify(done))
        fail(i, "response.output differs from the done items");
      const usage = response?.usage as Json | undefined;
      for (const k of ["input_tokens", "output_tokens", "total_tokens"])
        if (typeof usage?.[k] !== "number") fail(i, `usage.${k} missing`);
      const expected = {
        "response.completed": "completed",
        "response.failed": "failed",
        "response.incomplete": "incomplete",
      }[ev.type];
      if (response?.status !== expected) fail(i, `status ${String(response?.status)}`);
      if (ev.type === "response.failed" && typeof (response?.error as Json | null)?.message !== "string")
        fail(i, "error missing");
      if (
        ev.type === "response.incomplete" &&
        typeof (response?.incomplete_details as Json | null)?.reason !== "string"
      )
        fail(i, "incomplete_details.reason missing");
    }

    if (ev.type === "response.output_item.added") {
      const item = ev.item as Json;
      if (open !== undefined) fail(i, `item ${open.id} still open`);
      if (ev.output_index !== added) fail(i, `output_index ${String(ev.output_index)}, expected ${added}`);
      if (typeof item.id !== "string" || item.id === "") fail(i, "item without id");
      if (item.type === "function_call") {
        if (typeof item.call_id !== "string" || !String(item.call_id).startsWith("call_"))
          fail(i, "function_call without call_id");
        if (item.arguments !== "") fail(i, "function_call must start with arguments ''");
      }
      if (item.type === "message" && JSON.stringify(item.content) !== "[]")
        fail(i, "message must start with content []");
      if (item.type === "reasoning" && JSON.stringify(item.summary) !== "[]")
        fail(i, "reasoning must start with summary []");
      open = { id: String(item.id), index: added, type: String(item.type), text: "", args: "", added: item };
      added++;
      phase = "none";
      continue;
    }

    const itemType = ITEM_EVENT_TYPES[ev.type];
    if (itemType !== undefined) {
      if (open === undefined) {
        fail(i, "no open item");
        continue;
      }
      if (ev.item_id !== open.id || ev.output_index !== open.index)
        fail(i, `targets ${String(ev.item_id)}@${String(ev.output_index)}`);
      if (open.type !== itemType) fail(i, `expected a ${itemType} item, open is ${open.type}`);
      if ("content_index" in ev && ev.content_index !== 0) fail(i, "content_index must be 0");
      if ("summary_index" in ev && ev.summary_index !== 0) fail(i, "summary_index must be 0");
    }
    switch (ev.type) {
      case "response.content_part.added":
      case "response.reasoning_summary_part.added":
        if (phase !== "none") fail(i, "part added twice");
        phase = "text";
        break;
      case "response.output_text.delta":
      case "response.reasoning_summary_text.delta":
        if (phase !== "text") fail(i, "delta outside an open part");
        if (open) open.text += String(ev.delta);
        break;
      case "response.output_text.done":
      case "response.reasoning_summary_text.done":
        if (phase !== "text") fail(i, "text done outside an open part");
        if (open && ev.text !== open.text) fail(i, "done text differs from the deltas");
        phase = "text-done";
        break;
      case "response.content_part.done":
      case "response.reasoning_summary_part.done":
        if (phase !== "text-done") fail(i, "part done before text done");
        if (open && (ev.part as Json).text !== open.text) fail(i, "part text differs");
        phase = "part-done";
        break;
      case "response.function_call_arguments.delta":
        if (phase !== "none") fail(i, "arguments delta after done");
        if (open) open.args += String(ev.delta);
        break;
      case "response.function_call_arguments.done":
        if (open && ev.arguments !== open.args) fail(i, "done arguments differ from the deltas");
        if (open && ev.name !== open.added.name) fail(i, "name differs from the item");
        phase = "args-done";
        break;
      case "response.output_item.done": {
        const item = ev.item as Json;
        if (open === undefined) {
          fail(i, "no open item");
          continue;
        }
        if (ev.output_index !== open.index || item.id !== open.id || item.type !== open.type)
          fail(i, "done item is not the open one");
        if (item.type === "function_call") {
          if (item.call_id !== open.added.call_id) fail(i, "call_id changed");
          if (phase === "args-done" && item.arguments !== open.args) fail(i, "item arguments differ");
          if (typeof item.arguments !== "string") fail(i, "arguments must be a string");
        }
        if (item.type === "message") {
          if (phase !== "part-done") fail(i, "message done before its part");
          if ((item.content as Json[])[0]?.text !== open.text) fail(i, "message text differs");
        }
        if (item.type === "reasoning") {
          if (phase !== "part-done") fail(i, "reasoning done before its summary part");
          if ((item.summary as Json[])[0]?.text !== open.text) fail(i, "summary text differs");
        }
        done.push(item);
        open = undefined;
        break;
      }
    }
  }
  return errors;
};
