import type { ToolPolicy, TurnRequest } from "@proxy/core";
import {
  createTelemetry,
  issueToGatewayError,
  resolveOutputMode,
  runTurn,
  toGatewayError,
  unixSeconds,
} from "@proxy/core";
import { Result, SchemaParser } from "effect";
import type { Context } from "hono";
import { collectSummary, withCompactionInstruction } from "../compaction.js";
import { decodeInput } from "../request/decode-input.js";
import type { Input } from "../request/input-schema.js";
import { mapInput } from "../request/map-input.js";
import { CompactRequest } from "../request/request-schema.js";
import { toCompactionItem } from "../response/output-items.js";
import { toResponseUsage } from "../response/response-object.js";
import type { ResolvedDeps } from "./deps.js";
import { errorResponse, readJsonBody } from "./error-response.js";

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
 * Legacy `POST /responses/compact` (codex before 0.169, `client.responses.compact()`): the backend
 * writes a handoff summary of `input`; we answer `{object:"response.compaction", output, usage}`.
 */
export const handleCompact = async (c: Context, deps: ResolvedDeps): Promise<Response> => {
  const startedAt = deps.clock.now();
  const outputMode = resolveOutputMode(c.req.header("x-proxy-output-mode"), deps.settings.outputMode);
  let body: CompactRequest;
  let turn: TurnRequest;
  let input: Input;
  try {
    const decoded = decodeCompact(await readJsonBody(c));
    if (Result.isFailure(decoded)) throw issueToGatewayError(decoded.failure);
    body = decoded.success;
    input = decodeInput(body.input, deps.issued.lookup);
    const mapped = mapInput(input);
    turn = { model: body.model, instructions: body.instructions ?? undefined, items: mapped.items };
  } catch (cause) {
    const error = toGatewayError(cause);
    deps.observer?.onTurnEnd({
      api: "responses",
      model: "",
      stream: false,
      outputMode,
      telemetry: createTelemetry([]),
      error,
    });
    return errorResponse(c, error);
  }

  const controller = new AbortController();
  const abort = () => controller.abort();
  c.req.raw.signal.addEventListener("abort", abort, { once: true });
  const handle = runTurn(
    { backend: deps.backend, ids: deps.ids, clock: deps.clock, schemas: deps.schemas },
    {
      request: withCompactionInstruction(turn),
      tools: NO_TOOLS,
      settings: { ...deps.settings, outputMode },
      signal: controller.signal,
    },
  );
  const outcome = await collectSummary(handle.events).finally(() =>
    c.req.raw.signal.removeEventListener("abort", abort),
  );
  deps.observer?.onTurnEnd({
    api: "responses",
    model: body.model,
    stream: false,
    outputMode,
    telemetry: handle.telemetry(),
    finish: outcome.ok ? "stop" : undefined,
    error: outcome.ok ? undefined : outcome.error,
    ttfbMs: deps.clock.now() - startedAt,
  });
  if (!outcome.ok) return errorResponse(c, outcome.error);
  return c.json({
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
