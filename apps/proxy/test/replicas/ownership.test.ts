import { type ConversationOwners, createMemoryConversationOwners } from "@proxy/core/gateway";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { createOwnership } from "../../src/replicas/ownership.js";

const logger = pino({ level: "silent" });

/** The memory table, with every statement it was asked for in order, each taking `delayMs`. */
const recording = (delayMs = 0) => {
  const owners = createMemoryConversationOwners();
  const calls: string[] = [];
  const slow = () => new Promise((r) => setTimeout(r, delayMs));
  const table: ConversationOwners = {
    ...owners,
    async record(keys, owner, now) {
      calls.push(`record ${keys.join(",")}`);
      await slow();
      return owners.record(keys, owner, now);
    },
    async release(keys, owner) {
      calls.push(`release ${keys.join(",")}`);
      await slow();
      return owners.release(keys, owner);
    },
  };
  return { owners, table, calls };
};

describe("ownership: this replica's rows in the owners table", () => {
  it("writes what one turn made continuable in one statement, and what it let go in one", async () => {
    const { owners, table, calls } = recording();
    const ownership = createOwnership(table, "http://self", logger);
    for (const key of ["live", "turn-1", "turn-2"]) ownership.observe(key, true);
    await ownership.settled();
    expect(calls).toEqual(["record live,turn-1,turn-2"]);
    expect(ownership.lastHeld(["turn-1", "turn-2", "other"])).toBe(1);
    for (const key of ["live", "turn-1", "turn-2"]) ownership.observe(key, false);
    ownership.observe("next", true);
    await ownership.settled();
    expect(calls.slice(1)).toEqual(["release live,turn-1,turn-2", "record next"]);
    expect(await owners.lookup(["live", "turn-2"])).toBeUndefined();
    expect(await owners.lookup(["next"])).toEqual({ key: "next", owner: "http://self" });
    expect(ownership.holds("turn-1")).toBe(false);
  });

  it("writes one after another, the newest change of a key winning, so a late release never undoes a record", async () => {
    const { owners, table, calls } = recording(30);
    const ownership = createOwnership(table, "http://self", logger);
    ownership.observe("k", true);
    await new Promise((r) => setTimeout(r, 5)); // the record is being written
    ownership.observe("k", false);
    ownership.observe("k", true); // taken and parked again before the next write
    ownership.observe("j", true);
    ownership.observe("j", false);
    await ownership.settled();
    expect(calls).toEqual(["record k", "release j", "record k"]);
    expect(await owners.lookup(["k"])).toEqual({ key: "k", owner: "http://self" });
    expect(await owners.lookup(["j"])).toBeUndefined();
  });

  it("a store that fails costs the hint, never the turn", async () => {
    const owners = createMemoryConversationOwners();
    const broken: ConversationOwners = {
      ...owners,
      record: () => Promise.reject(new Error("the store is down")),
    };
    const ownership = createOwnership(broken, "http://self", logger);
    ownership.observe("k", true);
    await expect(ownership.settled()).resolves.toBeUndefined();
    expect(ownership.holds("k")).toBe(true);
  });
});
