import * as Schema from "effect/Schema";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeCodexNotification, FAST_CHECKS, PARAMS } from "../src/turn/codex-notifications.js";

const field = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.string(),
  fc.double(),
  fc.boolean(),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.object({ maxDepth: 1 }),
);
const payload = fc.oneof(
  fc.record(
    { delta: field, turnId: field, summaryIndex: field, threadId: field, extra: field },
    { requiredKeys: [] },
  ),
  field,
);

describe("codex notifications are decoded by their schema", () => {
  for (const [method, fast] of FAST_CHECKS)
    it(`the hand check of ${method} accepts exactly what its schema accepts`, () => {
      const schema = PARAMS.get(method);
      if (schema === undefined) throw new Error(`no schema for ${method}`);
      const is = Schema.is(schema);
      fc.assert(
        fc.property(payload, (p) => fast(p) === is(p)),
        { numRuns: 2_000 },
      );
    });

  it("reads known methods, passes unknown ones as `other`, and reports a malformed payload", () => {
    const invalid: string[] = [];
    const onInvalid = (method: string) => invalid.push(method);
    expect(
      decodeCodexNotification("item/agentMessage/delta", { turnId: "t", delta: "hi" }, onInvalid),
    ).toEqual({
      method: "item/agentMessage/delta",
      params: { turnId: "t", delta: "hi" },
    });
    expect(decodeCodexNotification("account/rateLimits/updated", { anything: 1 }, onInvalid)).toEqual({
      method: "other",
    });
    expect(decodeCodexNotification("turn/completed", { turn: { id: 7 } }, onInvalid)).toEqual({
      method: "other",
    });
    expect(decodeCodexNotification("item/agentMessage/delta", { delta: 3 }, onInvalid)).toEqual({
      method: "other",
    });
    expect(invalid).toEqual(["turn/completed", "item/agentMessage/delta"]);
  });
});
