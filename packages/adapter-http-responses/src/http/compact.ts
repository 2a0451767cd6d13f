import type { ToolPolicy, TurnRequest } from "@proxy/core";
import { unixSeconds } from "@proxy/core";
import { issueToGatewayError, openTurnSession, readJsonBody } from "@proxy/http-surface";
import * as Result from "effect/Result";
import * as SchemaParser from "effect/SchemaParser";
import type { Context } from "hono";
import { collectSummary, withCompactionInstruction } from "../compaction.js";
import { decodeInput } from "../request/decode-input.js";
import { decodeResponsesTools } from "../request/decode-tools.js";
import type { Input } from "../request/input-schema.js";
import { mapInput, type ToolSource } from "../request/map-input.js";
import { CompactRequest } from "../request/request-schema.js";
import { toCompactionItem } from "../response/output-items.js";
import { toResponseUsage } from "../response/response-object.js";
import type { ResolvedDeps } from "./deps.js";
import { RESPONSES_SURFACE } from "./surface.js";

const decodeCompact = SchemaParser.decodeUnknownResult(CompactRequest);
const NO_TOOLS: ToolPolicy = { tools: [], choice: { type: "none" }, parallel: false };

/** OpenAI's compacted output keeps the user's messages, followed by the single compaction item. */
const userMessages = (input: Input, nextId: () => string) => {
  const items = typeof input === "string" ? [{ role: "user" as const, content: input }] : input;
  return items.flatMap((item) =>
    (item.type === undefined || item.type === "message") && item.role === "user"
      ? [
          {
            type: "message" as const,
            id: nextId(),
            status: "completed" as const,
            role: "user" as const,
            content:
              typeof item.content === "string"
                ? [{ type: "input_text" as const, text: item.content }]
                : item.content,
          },
        ]
      : [],
  );
};

/**
 * The conversation's tools, for a backend that compacts its live thread natively; tools this
 * endpoint always ignored stay ignored (no native compaction then, never a refusal).
 */
const nativeCompaction = (body: CompactRequest, extra: ReadonlyArray<ToolSource>) => {
  try {
    return { tools: decodeResponsesTools(body, extra).policy, keep: "user-messages" as const };
  } catch {
    return undefined;
  }
};

/**
 * Legacy `POST /responses/compact` (codex before 0.169, `client.responses.compact()`): the backend
 * writes a handoff summary of `input`; we answer `{object:"response.compaction", output, usage}`.
 */
export const handleCompact = async (c: Context, deps: ResolvedDeps): Promise<Response> => {
  const session = openTurnSession(c, deps, RESPONSES_SURFACE);
  let body: CompactRequest;
  let turn: TurnRequest;
  let input: Input;
  let native: Parameters<typeof withCompactionInstruction>[1];
  try {
    const decoded = decodeCompact(await readJsonBody(c));
    if (Result.isFailure(decoded)) throw issueToGatewayError(decoded.failure);
    body = decoded.success;
    input = decodeInput(body.input, deps.issued.lookup);
    const mapped = mapInput(input);
    turn = {
      model: body.model,
      instructions: body.instructions ?? undefined,
      items: mapped.items,
      // As the conversation's ordinary turns carry them: its live thread is keyed by them.
      reasoningEffort: body.reasoning?.effort ?? undefined,
      reasoningSummary: body.reasoning?.summary ?? undefined,
    };
    native = nativeCompaction(body, mapped.additionalTools);
  } catch (cause) {
    return session.fail(cause);
  }

  const started = await session.start({
    request: withCompactionInstruction(turn, native),
    tools: NO_TOOLS,
    stream: false,
  });
  if (!started.accepted) return started.response;
  const outcome = await collectSummary(started.events);
  if (!outcome.ok) return session.fail(outcome.error);
  return session.json({
    id: deps.ids.next("resp"),
    object: "response.compaction",
    created_at: unixSeconds(deps.clock),
    output: [
      ...userMessages(input, () => deps.ids.next("msg")),
      toCompactionItem(deps.ids.next("cmp"), outcome.summary),
    ],
    usage: toResponseUsage(outcome.usage),
  });
};
