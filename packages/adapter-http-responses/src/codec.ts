import { callerOwner, type TurnCodec } from "@proxy/http-surface";
import { type CompactTurn, compactFolder, decodeCompactTurn } from "./compact.js";
import { withCompactionInstruction } from "./compaction.js";
import type { ResolvedDeps } from "./deps.js";
import { RESPONSES_SURFACE } from "./profile.js";
import { decodeResponsesRequest } from "./request/decode-request.js";
import type { ResponsesTurn } from "./response/answer.js";
import { responsesFolder } from "./response/fold.js";
import { responsesStream } from "./response/stream.js";
import { startBackgroundResponse } from "./stored/background.js";
import { prepareStoredTurn } from "./stored/prepare.js";

/**
 * `POST /responses` as the kit serves it: with a store, the chain or conversation it continues
 * becomes history before any backend turn; `background: true` runs detached (`detach`); otherwise
 * the answer is Responses SSE (`stream: true`) or the final Response object, stored when asked.
 */
export const RESPONSES_CODEC: TurnCodec<ResponsesTurn, ResolvedDeps> = {
  profile: RESPONSES_SURFACE,
  async decode(json, { c, deps }) {
    const prepared =
      deps.state === undefined
        ? undefined
        : await prepareStoredTurn(json, callerOwner(c), deps.state, deps.ids, deps.clock.now());
    const parsed = decodeResponsesRequest(json, prepared?.resolve ?? deps.issued.lookup, prepared);
    const request = parsed.purpose === "compaction" ? withCompactionInstruction(parsed.turn) : parsed.turn;
    return { request, tools: parsed.tools, stream: parsed.stream, parsed, prepared };
  },
  detach: ({ parsed, prepared }, { c, deps }) =>
    deps.state !== undefined && prepared !== undefined && parsed.body.background === true
      ? startBackgroundResponse(c, deps, deps.state, parsed, prepared)
      : undefined,
  stream: responsesStream,
  fold: responsesFolder,
};

/**
 * Legacy `POST /responses/compact` (codex before 0.169, `client.responses.compact()`): the backend
 * writes a handoff summary of `input`; the answer is `{object:"response.compaction", output, usage}`.
 */
export const COMPACT_CODEC: TurnCodec<CompactTurn, ResolvedDeps> = {
  profile: RESPONSES_SURFACE,
  decode: (json, { deps }) => decodeCompactTurn(json, deps.issued.lookup),
  fold: (turn, { deps }) => compactFolder(turn, deps),
};
