import { createScriptedBackend } from "@proxy/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayOver, type ReliabilityGateway } from "../reliability/support.js";

const ALICE = "sk-alice-0123456789";
const BOB = "sk-bob-0123456789abc";

/** PROXY_CONVERSATIONS_AUTOCREATE names are per owner. */
describe("autocreated conversation names are scoped to their owner (real gateway, two keys)", () => {
  let gateway: ReliabilityGateway;
  const backend = createScriptedBackend(() => ({ chunks: ["noted"] }));
  const seen = () => JSON.stringify(backend.requests.at(-1) ?? {});
  beforeAll(async () => {
    gateway = await gatewayOver(backend, {
      PROXY_STORE: "memory",
      PROXY_API_KEYS: `${ALICE},${BOB}`,
      PROXY_CONVERSATIONS_AUTOCREATE: "true",
    });
  });
  afterAll(() => gateway?.close());

  const respond = (key: string, conversation: string, input: string) =>
    fetch(`${gateway.url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: "m", conversation, input }),
    });
  const gemini = (key: string, conversation: string, input: string) =>
    fetch(`${gateway.url}/v1/gemini`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-goog-api-key": key },
      body: JSON.stringify({ model: "m", conversation, input }),
    });

  it("Responses: key B taking key A's name gets its own conversation; A's history stays A's", async () => {
    // Bob comes first: before, he would have taken the name and Alice would get a 404.
    const bobFirst = await respond(BOB, "project-x", "bob's secret plan");
    expect(bobFirst.status).toBe(200);
    expect(((await bobFirst.json()) as { conversation?: { id: string } }).conversation?.id).toBe("project-x");
    const alice = await respond(ALICE, "project-x", "alice's question");
    expect(alice.status).toBe(200);
    expect(seen()).not.toContain("bob's secret plan");
    const aliceAgain = await respond(ALICE, "project-x", "alice again");
    expect(aliceAgain.status).toBe(200);
    expect(seen()).toContain("alice's question");
    expect(seen()).not.toContain("bob's secret plan");
    // The owner reads its conversation by its name; the other key's answer is the same as for any name.
    const aliceItems = await fetch(`${gateway.url}/v1/conversations/project-x/items`, {
      headers: { authorization: `Bearer ${ALICE}` },
    });
    expect(aliceItems.status, await aliceItems.clone().text()).toBe(200);
    expect(await aliceItems.text()).toContain("alice again");
    const bobItems = await fetch(`${gateway.url}/v1/conversations/project-x/items`, {
      headers: { authorization: `Bearer ${BOB}` },
    });
    expect(await bobItems.text()).not.toContain("alice");
    const unknown = await fetch(`${gateway.url}/v1/conversations/never-used/items`, {
      headers: { authorization: `Bearer ${BOB}` },
    });
    expect(unknown.status).toBe(404);
  });

  it("Responses: whether another key used a name cannot be learned (same answer as a fresh name)", async () => {
    await respond(ALICE, "alice-only", "alice's notes");
    const taken = await respond(BOB, "alice-only", "probe");
    const fresh = await respond(BOB, "nobody-has-this", "probe");
    expect(taken.status).toBe(fresh.status);
    expect(taken.status).toBe(200);
    expect(seen()).not.toContain("alice's notes");
  });

  it("Gemini /v1/gemini: the same names are per owner", async () => {
    expect((await gemini(BOB, "shared-name", "bob's gemini secret")).status).toBe(200);
    expect((await gemini(ALICE, "shared-name", "alice's gemini turn")).status).toBe(200);
    expect(seen()).not.toContain("bob's gemini secret");
    expect((await gemini(ALICE, "shared-name", "alice's second gemini turn")).status).toBe(200);
    expect(seen()).toContain("alice's gemini turn");
    expect(seen()).not.toContain("bob's gemini secret");
  });
});
