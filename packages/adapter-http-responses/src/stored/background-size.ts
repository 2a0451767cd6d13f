import { GatewayError } from "@proxy/core";
import type { ResponseObject } from "../response/response-object.js";
import type { ResponsesEvent } from "../response/text-delta-event.js";

/** Size of a value as stored (JSON text). */
export const jsonBytes = (value: unknown): number => JSON.stringify(value).length;

export const tooLargeError = (limit: number) =>
  new GatewayError(
    "request_too_large",
    `The background response grew past ${limit} bytes, the most the store keeps (PROXY_STORE_MAX_RESPONSE_BYTES); it was stopped.`,
    { code: "response_too_large" },
  );

/** The stored outcome of a background response that outgrew the store: failed, without its output. */
export const tooLargeBody = (response: ResponseObject, limit: number): ResponseObject => {
  const error = tooLargeError(limit);
  return { ...response, status: "failed", output: [], error: { code: error.code, message: error.message } };
};

export const tooLargeEvent = (response: ResponseObject, sequence: number, limit: number): ResponsesEvent =>
  ({
    type: "response.failed",
    sequence_number: sequence,
    response: tooLargeBody(response, limit),
  }) as ResponsesEvent;

/**
 * What a background response stores, counted against PROXY_STORE_MAX_RESPONSE_BYTES: its input,
 * its events and its final body. Once past the limit it stays too large.
 */
export class StoredSize {
  private bytes: number;
  private over: boolean;
  readonly limit: number;

  constructor(limit: number, initialBytes: number) {
    this.limit = limit;
    this.bytes = initialBytes;
    this.over = initialBytes > limit;
  }

  get tooLarge(): boolean {
    return this.over;
  }

  /** Counts a batch of events; false (and too large from now on) when it does not fit. */
  admit(events: ReadonlyArray<ResponsesEvent>): boolean {
    if (this.over) return false;
    this.bytes += jsonBytes(events);
    if (this.bytes <= this.limit) return true;
    this.over = true;
    return false;
  }
}
