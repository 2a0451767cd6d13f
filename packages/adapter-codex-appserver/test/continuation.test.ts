import type { BackendRequest, PromptMessage } from "@proxy/core";
import { afterEach, describe, expect, it } from "vitest";
import { prefixKeys, rootKey } from "../src/threads/conversation-key.js";
import { createLiveThreads, type LiveThread, type LiveThreads } from "../src/threads/live-threads.js";
import type { ThreadChannel } from "../src/threads/thread-channel.js";
import type { AppServerProcess } from "../src/transport/app-server-process.js";
import { toCodexTurnInput } from "../src/turn/codex-input.js";
import { takeContinuation } from "../src/turn/continuation.js";
import { assistantMessage as assistant, userMessage as user } from "./helpers.js";

/**
 * The continuation rule on its own: which live thread a request takes, and how (answers to open
 * calls, new items on a finished turn, or a revert that replaces a turn), over the real table with
 * stand-in threads (no codex: what codex does with a revert is pinned in thread-revert.test.ts).
 */
const ROOT = rootKey("caller", { model: "m" });
const keyOf = (history: ReadonlyArray<PromptMessage>, root = ROOT) =>
  prefixKeys(root, history).at(-1) as string;
const calls = (...ids: string[]): PromptMessage => ({
  role: "assistant",
  toolCalls: ids.map((callId) => ({ callId, name: "get_weather", arguments: '{"city":"Paris"}' })),
});
const result = (callId: string, output = "22C"): PromptMessage => ({ role: "tool", callId, output });
const toTurnInput = (r: Pick<BackendRequest, "history" | "input">) =>
  toCodexTurnInput(r, { allowRemoteImages: false });
const ask = (text: string) => [{ type: "text" as const, text }];
const req = (history: PromptMessage[], input = ask("")): BackendRequest => ({
  model: "m",
  instructions: "",
  history,
  input: input[0]?.text === "" ? [] : input,
});

const proc = {
  isAlive: () => true,
  onExit: () => () => {},
  connection: { request: async () => ({}) },
} as unknown as AppServerProcess;
const channel = (pending: string[] = []): ThreadChannel =>
  ({
    threadId: "thread",
    pendingCalls: () => pending,
    detach() {},
    close() {},
  }) as unknown as ThreadChannel;

/**
 * A thread whose one revertible codex turn began after `before` (`first`: its input and the
 * model's first reply) and that now holds `now`; open at `pending` calls when given.
 */
const park = (
  live: LiveThreads,
  spec: {
    before: PromptMessage[];
    first: PromptMessage[];
    now: PromptMessage[];
    pending?: string[];
    root?: string;
  },
): LiveThread => {
  const root = spec.root ?? ROOT;
  const thread: LiveThread = {
    proc,
    channel: channel(spec.pending),
    openTurnId: spec.pending ? "t-open" : undefined,
    usageTotal: undefined,
    size: 0,
    toolChars: 0,
    turns: [
      {
        key: keyOf(spec.before, root),
        turnId: "t1",
        usageBefore: undefined,
        firstReply: keyOf([...spec.before, ...spec.first], root),
      },
    ],
  };
  live.park(keyOf(spec.now, root), thread);
  return thread;
};

describe("takeContinuation", () => {
  let live: LiveThreads;
  const table = () => {
    live = createLiveThreads(
      { maxPerProcess: 10, idleMs: 60_000, maxCharsPerProcess: 1e9 },
      { requestTimeoutMs: 1_000, logger: { debug() {} } as never, durableThreads: true },
    );
    return live;
  };
  afterEach(() => live?.close());
  const take = (request: BackendRequest, root = ROOT) =>
    takeContinuation(live, root, request, toTurnInput).continuation;

  /** Turn 1 "hi"/"hello", then turn 2: "weather?", a call, its result, the answer. */
  const prefix = [user("hi"), assistant("hello")];
  const loop = [user("weather?"), calls("c1"), result("c1")];
  const finished = () =>
    park(table(), {
      before: prefix,
      first: [user("weather?"), calls("c1")],
      now: [...prefix, ...loop, assistant("Sunny.")],
    });

  it("a regenerate of a tool loop's answer after its results reverts the turn and replays them", () => {
    const thread = finished();
    const c = take(req([...prefix, ...loop]));
    expect(c?.thread).toBe(thread);
    expect(c?.revertBefore).toBe("t1");
    expect(c?.turns).toEqual([]);
    expect(c?.turn).toEqual({
      inject: [
        { type: "message", role: "user", content: [{ type: "input_text", text: "weather?" }] },
        { type: "function_call", call_id: "c1", name: "get_weather", arguments: '{"city":"Paris"}' },
        { type: "function_call_output", call_id: "c1", output: "22C" },
      ],
      input: [],
    });
    expect(live.counts().live).toBe(0); // taken: no other request gets it
  });

  it("an edit that changes a tool result replays the edited result", () => {
    finished();
    const c = take(req([...prefix, user("weather?"), calls("c1"), result("c1", "-5C")]));
    expect(c?.revertBefore).toBe("t1");
    expect(c?.turn?.inject.at(-1)).toEqual({ type: "function_call_output", call_id: "c1", output: "-5C" });
  });

  it("an edit of the loop's answer followed by a new message replays the edited answer", () => {
    finished();
    const c = take(req([...prefix, ...loop, assistant("Rainy.")], ask("thanks")));
    expect(c?.revertBefore).toBe("t1");
    expect(c?.turn?.inject.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "Rainy." }] });
    expect(c?.turn?.input).toEqual([{ type: "text", text: "thanks", text_elements: [] }]);
  });

  it("a regenerate of a step inside a loop left open at tool calls reverts that open turn", () => {
    const thread = park(table(), {
      before: prefix,
      first: [user("weather?"), calls("c1")],
      now: [...prefix, ...loop, calls("c2")],
      pending: ["c2"],
    });
    const c = take(req([...prefix, ...loop]));
    expect(c?.thread).toBe(thread);
    expect(c?.revertBefore).toBe("t1");
    expect(c?.answers).toEqual([]);
    expect(c?.turn?.inject).toHaveLength(3);
  });

  it("the results of the open calls continue the open turn (no revert)", () => {
    park(table(), {
      before: prefix,
      first: [user("weather?"), calls("c1")],
      now: [...prefix, ...loop, calls("c2")],
      pending: ["c2"],
    });
    const c = take(req([...prefix, ...loop, calls("c2"), result("c2", "ok")]));
    expect(c?.revertBefore).toBeUndefined();
    expect(c?.answers).toEqual([{ callId: "c2", output: "ok" }]);
  });

  it("a regenerate of the first turn's answer at the conversation's start: it came through the first reply", () => {
    const thread = park(table(), {
      before: [],
      first: [user("weather?"), calls("c1")],
      now: [...loop, assistant("Sunny.")],
    });
    expect(take(req(loop))?.thread).toBe(thread);
  });

  it("a new conversation that only starts alike never takes the thread of one that began at the root", () => {
    park(table(), {
      before: [],
      first: [user("weather?"), calls("c1")],
      now: [...loop, assistant("Sunny.")],
    });
    expect(take(req([], ask("weather?")))).toBeUndefined(); // the first message again
    expect(take(req([user("weather?"), calls("c9"), result("c9")]))).toBeUndefined(); // other calls
    expect(live.counts().live).toBe(1);
  });

  it("history that stops mid-call is refused: a call without its result, a result for a call outside the turn", () => {
    park(table(), {
      before: prefix,
      first: [user("weather?"), calls("c1", "c2")],
      now: [...prefix, user("weather?"), calls("c1", "c2")],
      pending: ["c1", "c2"],
    });
    // Only one of two parallel calls answered.
    expect(take(req([...prefix, user("weather?"), calls("c1", "c2"), result("c1")]))).toBeUndefined();
    // A call left unanswered, then a new message.
    expect(take(req([...prefix, user("weather?"), calls("c1", "c2")], ask("never mind")))).toBeUndefined();
    // A result for a call the turn did not make.
    expect(take(req([...prefix, user("weather?"), result("c0")]))).toBeUndefined();
    // The same call twice.
    expect(
      take(req([...prefix, user("weather?"), calls("c1"), result("c1"), calls("c1"), result("c1")])),
    ).toBeUndefined();
    expect(live.counts().live).toBe(1);
  });

  it("another caller's (or another config's) identical request never takes it", () => {
    finished();
    expect(take(req([...prefix, ...loop]), rootKey("intruder", { model: "m" }))).toBeUndefined();
    expect(take(req([...prefix, ...loop]), rootKey("caller", { model: "other" }))).toBeUndefined();
    expect(live.counts().live).toBe(1);
  });

  it("a request that shares no turn boundary with the thread finds nothing", () => {
    finished();
    expect(take(req([user("hi"), assistant("HELLO"), ...loop]))).toBeUndefined();
  });
});
