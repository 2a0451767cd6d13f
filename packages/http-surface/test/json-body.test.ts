import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { readJsonBody } from "../src/request/json-body.js";

/** The order in which a timer due at once and the body's decode finish, for a body of `chars`. */
const raceWithTimer = async (chars: number) => {
  const order: string[] = [];
  const app = new Hono().post("/", async (c) => {
    setTimeout(() => order.push("timer"), 0);
    const body = (await readJsonBody(c)) as { text: string };
    order.push(`decoded ${body.text.length}`);
    return c.body(null, 204);
  });
  const res = await app.request("/", { method: "POST", body: JSON.stringify({ text: "x".repeat(chars) }) });
  await new Promise((r) => setTimeout(r, 5));
  return { status: res.status, order };
};

describe("readJsonBody", () => {
  it("parses and checks a large body in separate turns of the event loop", async () => {
    // A 5 MB photo's body: timers and other sockets run between its parse, its check and the decode.
    expect(await raceWithTimer(2 * 1024 * 1024)).toEqual({
      status: 204,
      order: ["timer", `decoded ${2 * 1024 * 1024}`],
    });
  });

  it("decodes an ordinary body in one go", async () => {
    expect(await raceWithTimer(100)).toEqual({ status: 204, order: ["decoded 100", "timer"] });
  });
});
