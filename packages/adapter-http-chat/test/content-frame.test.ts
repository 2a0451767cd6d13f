import { sseFrame } from "@proxy/http-surface";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chunk, contentFrameTemplate } from "../src/response/chat-shapes.js";

describe("content chunk frame template", () => {
  it("gives the same bytes as serialising the chunk, for any text, model name and usage flag", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary" }),
        fc.string({ unit: "binary" }),
        fc.boolean(),
        (text, model, includeUsage) => {
          const meta = { id: "chatcmpl-1", created: 1_763_856_000, model };
          const template = contentFrameTemplate(meta, includeUsage);
          expect(template.head + JSON.stringify(text) + template.tail).toBe(
            sseFrame(JSON.stringify(chunk(meta, { content: text }, null, includeUsage))),
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});
