import { describe, expect, it } from "vitest";
import { type AdmissionGate, createAdmissionGate } from "../../src/gateway.js";
import { GatewayError } from "../../src/index.js";

const gate = (maxInFlight = 1, maxQueue = 2): AdmissionGate =>
  createAdmissionGate({ maxInFlight, maxQueue, overloadedMessage: "the test backend is at capacity" });

const live = () => new AbortController().signal;

/** Whether `promise` has settled once pending callbacks have run. */
const settled = async (promise: Promise<unknown>): Promise<boolean> => {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setTimeout(resolve, 0));
  return done;
};

describe("createAdmissionGate", () => {
  it("admits up to maxInFlight at once and counts them", async () => {
    const g = gate(2, 1);
    await g.acquire(live());
    await g.acquire(live());
    expect({ inFlight: g.inFlight(), queued: g.queued(), capacity: g.capacity }).toEqual({
      inFlight: 2,
      queued: 0,
      capacity: 2,
    });
  });

  it("queues beyond maxInFlight and grants waiters in arrival order as slots are released", async () => {
    const g = gate(1, 3);
    const first = await g.acquire(live());
    const order: string[] = [];
    const waiters = ["a", "b", "c"].map((name) =>
      g.acquire(live()).then((release) => {
        order.push(name);
        return release;
      }),
    );
    expect(g.queued()).toBe(3);
    expect(await settled(waiters[0] as Promise<unknown>)).toBe(false);

    first();
    const releaseA = await (waiters[0] as Promise<() => void>);
    expect(order).toEqual(["a"]);
    // The slot passed straight on: still one running, two waiting.
    expect({ inFlight: g.inFlight(), queued: g.queued() }).toEqual({ inFlight: 1, queued: 2 });

    releaseA();
    (await (waiters[1] as Promise<() => void>))();
    (await (waiters[2] as Promise<() => void>))();
    expect(order).toEqual(["a", "b", "c"]);
    expect({ inFlight: g.inFlight(), queued: g.queued() }).toEqual({ inFlight: 0, queued: 0 });
  });

  it("refuses as overloaded, with its message and a retry hint, once the queue is full", async () => {
    const g = gate(1, 1);
    await g.acquire(live());
    void g.acquire(live());
    const refused = await g.acquire(live()).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(GatewayError);
    expect(refused).toMatchObject({
      kind: "overloaded",
      message: "the test backend is at capacity",
      retryAfterSeconds: 1,
    });
    expect({ inFlight: g.inFlight(), queued: g.queued() }).toEqual({ inFlight: 1, queued: 1 });
  });

  it("uses the configured retry hint", async () => {
    const g = createAdmissionGate({
      maxInFlight: 1,
      maxQueue: 0,
      overloadedMessage: "full",
      retryAfterSeconds: 7,
    });
    await g.acquire(live());
    await expect(g.acquire(live())).rejects.toMatchObject({ kind: "overloaded", retryAfterSeconds: 7 });
  });

  it("drops a waiter whose signal aborts, as cancelled, and the next release skips it", async () => {
    const g = gate(1, 2);
    const first = await g.acquire(live());
    const aborted = new AbortController();
    const gone = g.acquire(aborted.signal);
    const next = g.acquire(live());
    aborted.abort();
    await expect(gone).rejects.toMatchObject({
      kind: "cancelled",
      message: "request cancelled while queued",
    });
    expect(g.queued()).toBe(1);

    first();
    await next;
    expect({ inFlight: g.inFlight(), queued: g.queued() }).toEqual({ inFlight: 1, queued: 0 });
  });

  it("refuses an already aborted signal without taking a slot", async () => {
    const g = gate(1, 1);
    const aborted = new AbortController();
    aborted.abort();
    await expect(g.acquire(aborted.signal)).rejects.toMatchObject({ kind: "cancelled" });
    expect(g.inFlight()).toBe(0);
  });

  it("ignores a second release of the same slot", async () => {
    const g = gate(2, 0);
    const release = await g.acquire(live());
    await g.acquire(live());
    release();
    release();
    expect(g.inFlight()).toBe(1);
  });

  it("an abort after the grant does not touch the queue or the count", async () => {
    const g = gate(1, 1);
    const first = await g.acquire(live());
    const controller = new AbortController();
    const waiting = g.acquire(controller.signal);
    first();
    await waiting;
    controller.abort();
    expect({ inFlight: g.inFlight(), queued: g.queued() }).toEqual({ inFlight: 1, queued: 0 });
  });
});
