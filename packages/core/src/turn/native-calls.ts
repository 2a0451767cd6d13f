import type { BackendEvent, ParserEvent, ReadEventType, RejectReason } from "../events/stream-event.js";
import type { ToolSpec } from "../model/tool-spec.js";
import {
  type BlockContext,
  type CallStream,
  createCallStream,
  schemaProblem,
} from "../parser/call-stream.js";
import { repairJson } from "../parser/json-repair.js";
import type { ArgumentsValidator, ParserSink } from "../parser/parser-types.js";

/** The backend events a call reader reads: text and the model's own calls. */
export type ReadEvent = Extract<BackendEvent, { type: ReadEventType }>;

/**
 * Reads a turn's text and calls into the call gate's input (the same events, each call whole
 * and in turn, see `ParserEvent`), delivered to a sink in order (no array per event).
 */
export interface EventReader {
  pushTo(event: ReadEvent, sink: ParserSink): void;
  /** The backend ended: settle whatever is still open. */
  flushTo(sink: ParserSink): void;
}

/** The native reader's own array API too (its tests read events as lists). */
export interface NativeCallReader extends EventReader {
  push(event: ReadEvent): ReadonlyArray<ParserEvent>;
  flush(): ReadonlyArray<ParserEvent>;
}

const deliver = (events: ReadonlyArray<ParserEvent>, sink: ParserSink): void => {
  for (const event of events) {
    if (event.type === "text-delta") sink.text(event.delta);
    else sink.event(event);
  }
};

interface NativeCall {
  readonly callId: string;
  name: string;
  /** Arguments streamed so far (the deltas). */
  args: string;
  /** Streaming to the client now; only one call streams at a time. */
  stream?: CallStream | undefined;
}

type Held =
  | Extract<ReadEvent, { type: "text-delta" }>
  | { readonly call: NativeCall; readonly final: string };

const parseObject = (text: string): boolean => {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === "object" && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
};

/** Only what is missing is added (escapes, closing brackets): the value stays the one written. */
const repairObject = (text: string): string | undefined => {
  const repaired = repairJson(text);
  return repaired !== undefined && parseObject(repaired) ? repaired : undefined;
};

/**
 * Reads a native turn: the model's own function calls (`tool-call-*` events, named by `callId`,
 * possibly interleaved) come out as the sentinel parser's calls do (named by `index`, one at a
 * time, validated, a soft tool's JSON repaired, or a `tool-call-rejected`), so one call gate
 * applies every policy in both modes. Same kinds, same fields: what this adds is policy. A soft
 * tool's call streams as it arrives; a strict one is held until complete and validated against
 * its schema. While one call streams, text and other finished calls wait behind it.
 */
export const createNativeCallReader = (options: {
  readonly tools: ReadonlyMap<string, ToolSpec>;
  readonly validator?: ArgumentsValidator | undefined;
}): NativeCallReader => {
  const { tools } = options;
  let out: ParserEvent[] = [];
  let nextIndex = 0;
  const ctx: BlockContext = {
    tools,
    validator: options.validator,
    maxBlockBytes: Number.POSITIVE_INFINITY,
    emit(event) {
      out.push(event);
    },
    nextIndex: () => nextIndex++,
  };
  const calls = new Map<string, NativeCall>();
  const held: Held[] = [];
  let open: NativeCall | undefined;

  const streamable = (name: string) => {
    const tool = tools.get(name);
    return tool !== undefined && !tool.strict;
  };
  const callOf = (callId: string, name: string | undefined): NativeCall => {
    let call = calls.get(callId);
    if (call === undefined) {
      call = { callId, name: name ?? "", args: "" };
      calls.set(callId, call);
    } else if (name !== undefined && name !== "") call.name = name;
    return call;
  };
  // `raw` is empty: a native call was never text, so no policy may hand it to the client as text.
  const reject = (call: NativeCall, reason: RejectReason, strict: boolean, detail: string) =>
    out.push({ type: "tool-call-rejected", reason, strict, detail, raw: "", name: call.name });

  /** Emits one complete call: validated, repaired where a soft tool allows it, or rejected. */
  const settle = (call: NativeCall, final: string): void => {
    calls.delete(call.callId);
    const tool = tools.get(call.name);
    const text = final.trim() === "" ? "{}" : final;
    if (tool === undefined) {
      reject(call, "unknown-tool", false, `unknown tool "${call.name}"`);
    } else if (tool.strict) {
      const problem = parseObject(text)
        ? schemaProblem(ctx, call.name, text)
        : "arguments are not valid JSON";
      if (problem !== undefined) {
        reject(call, parseObject(text) ? "schema-mismatch" : "invalid-json", true, problem);
      } else {
        createCallStream(ctx, call.name, undefined, call.callId).finish({
          arguments: text,
          repaired: false,
          raw: "",
          format: "json",
        });
      }
    } else {
      const clean = parseObject(text);
      const args = clean ? text : repairObject(text);
      const stream = call.stream ?? createCallStream(ctx, call.name, undefined, call.callId);
      if (args !== undefined) {
        // Arguments that do not extend the streamed prefix withdraw the call.
        stream.finish({ arguments: args, repaired: !clean, raw: "", format: "json" });
      } else if (stream.started()) {
        stream.abandon("invalid-json", "arguments are not valid JSON", "");
      } else {
        reject(call, "invalid-json", false, "arguments are not valid JSON");
      }
    }
  };

  const release = (): void => {
    while (open === undefined && held.length > 0) {
      const next = held.shift() as Held;
      if ("type" in next) out.push(next);
      else settle(next.call, next.final);
    }
  };

  const take = (): ParserEvent[] => {
    const batch = out;
    out = [];
    return batch;
  };

  const reader: NativeCallReader = {
    pushTo(event, sink) {
      // Text with no call streaming or waiting goes straight on.
      if (event.type === "text-delta" && open === undefined && held.length === 0) sink.text(event.delta);
      else deliver(reader.push(event), sink);
    },
    flushTo(sink) {
      deliver(reader.flush(), sink);
    },
    push(event) {
      switch (event.type) {
        case "text-delta":
          if (open !== undefined || held.length > 0) held.push(event);
          else out.push(event);
          break;
        case "tool-call-start": {
          const call = callOf(event.callId, event.name);
          if (open === undefined && held.length === 0 && streamable(call.name)) {
            open = call;
            call.stream = createCallStream(ctx, call.name, undefined, call.callId);
          }
          break;
        }
        case "tool-call-delta": {
          const call = callOf(event.callId, undefined);
          call.args += event.delta;
          if (call === open) call.stream?.delta(event.delta);
          break;
        }
        case "tool-call-end": {
          const call = callOf(event.callId, event.name);
          if (call === open) {
            open = undefined;
            settle(call, event.arguments);
            release();
          } else if (open !== undefined || held.length > 0) held.push({ call, final: event.arguments });
          else settle(call, event.arguments);
          break;
        }
        default:
          break;
      }
      return take();
    },
    flush() {
      // Calls the backend never completed end with what was streamed of them.
      if (open !== undefined) {
        const call = open;
        open = undefined;
        settle(call, call.args);
      }
      release();
      for (const call of [...calls.values()]) settle(call, call.args);
      return take();
    },
  };
  return reader;
};
