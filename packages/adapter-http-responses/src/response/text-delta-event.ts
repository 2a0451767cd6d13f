import { sseFrame } from "@proxy/http-surface";

/** One Responses SSE event: `type`, its documented fields, and the global `sequence_number`. */
export interface ResponsesEvent {
  readonly type: string;
  readonly sequence_number: number;
  readonly [field: string]: unknown;
}

const TYPE = "response.output_text.delta";
const EMPTY_LOGPROBS: ReadonlyArray<never> = Object.freeze([]);

/**
 * `response.output_text.delta`, the stream's most frequent event, as a class: its keys are the
 * documented ones in their wire order (what `JSON.stringify` of the event gives, stored events
 * included), and its SSE frame is written from those fields without serialising an object.
 */
export class TextDeltaEvent implements ResponsesEvent {
  readonly type = TYPE;
  readonly item_id: string;
  readonly output_index: number;
  readonly content_index = 0;
  readonly delta: string;
  readonly logprobs = EMPTY_LOGPROBS;
  readonly sequence_number: number;
  readonly [field: string]: unknown;

  constructor(itemId: string, outputIndex: number, delta: string, sequenceNumber: number) {
    this.item_id = itemId;
    this.output_index = outputIndex;
    this.delta = delta;
    this.sequence_number = sequenceNumber;
  }
}

/** One Responses event as its SSE frame (`event:` named by its type). */
export const responsesEventFrame = (event: ResponsesEvent): string =>
  event instanceof TextDeltaEvent
    ? `event: ${TYPE}\ndata: {"type":"${TYPE}","item_id":${JSON.stringify(event.item_id)},"output_index":${event.output_index},"content_index":0,"delta":${JSON.stringify(event.delta)},"logprobs":[],"sequence_number":${event.sequence_number}}\n\n`
    : sseFrame(JSON.stringify(event), event.type);
