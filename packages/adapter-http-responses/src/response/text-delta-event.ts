import { jsonString } from "@proxy/http-surface";

/** One Responses SSE event: `type`, its documented fields, and the global `sequence_number`. */
export interface ResponsesEvent {
  readonly type: string;
  readonly sequence_number: number;
  readonly [field: string]: unknown;
}

const TYPE = "response.output_text.delta";
const EMPTY_LOGPROBS: ReadonlyArray<never> = Object.freeze([]);
const TAIL = ',"logprobs":[],"sequence_number":';

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

/** A text delta's frame up to its `delta` value: the same for every delta of one message item. */
export const textDeltaHead = (itemId: string, outputIndex: number): string =>
  `event: ${TYPE}\ndata: {"type":"${TYPE}","item_id":${JSON.stringify(itemId)},"output_index":${outputIndex},"content_index":0,"delta":`;

/** A text delta's SSE frame: its item's `head`, then the delta and its sequence number. */
export const textDeltaFrame = (head: string, delta: string, sequenceNumber: number): string =>
  `${head}${jsonString(delta)}${TAIL}${sequenceNumber}}\n\n`;

/**
 * One Responses event as its SSE frame (`event:` named by its type). The JSON text of an event has
 * no line break (JSON escapes them), so it is one `data:` line as it stands.
 */
export const responsesEventFrame = (event: ResponsesEvent): string =>
  event instanceof TextDeltaEvent
    ? textDeltaFrame(textDeltaHead(event.item_id, event.output_index), event.delta, event.sequence_number)
    : `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
