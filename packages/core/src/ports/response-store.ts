/**
 * Server-side state of the Responses and Conversations APIs: stored responses with their input
 * and output items, replayable stream events, conversations, and leases on background turns.
 *
 * Every read and write names an `owner` (a hash of the caller's API key, or "" when keys are off):
 * an object stored by one owner does not exist for another. Bodies are opaque JSON the surface
 * wrote; the store only keeps, orders, pages and expires them. Times are epoch milliseconds.
 */
export type StoredStatus = "queued" | "in_progress" | "completed" | "incomplete" | "failed" | "cancelled";

/**
 * Who is calling: `owner` is a one-way hash of the API key ("" when keys are off); never the key.
 * `name` is the key's declared name, when the deployment gave it one (usage accounting, limits).
 */
export interface Caller {
  readonly owner: string;
  readonly name?: string | undefined;
}

export const isTerminalStatus = (status: StoredStatus): boolean =>
  status !== "queued" && status !== "in_progress";

/** One item (input or output of a response, or of a conversation): its id and its JSON body. */
export interface StoredItem {
  readonly id: string;
  readonly body: unknown;
}

export interface StoredResponse {
  readonly id: string;
  readonly owner: string;
  readonly previousResponseId: string | null;
  readonly conversationId: string | null;
  readonly status: StoredStatus;
  readonly background: boolean;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** The Response object as the client sees it. */
  readonly body: unknown;
  /** Set by `requestCancel`; the process running the turn reads it when it renews its lease. */
  readonly cancelRequested: boolean;
  readonly leaseHolder: string | null;
  readonly leaseUntil: number | null;
}

export interface NewResponse {
  readonly id: string;
  readonly owner: string;
  readonly previousResponseId: string | null;
  readonly conversationId: string | null;
  readonly status: StoredStatus;
  readonly background: boolean;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly body: unknown;
  readonly input: ReadonlyArray<StoredItem>;
  /** Output known at creation (a finished turn stored in one write); empty for background turns. */
  readonly output: ReadonlyArray<StoredItem>;
  /** Stream events to replay with `GET ?stream=true`, numbered from 0 (`sequence_number`). */
  readonly events: ReadonlyArray<unknown>;
  /** A background turn: the process running it and until when its lease holds. */
  readonly lease?: { readonly holder: string; readonly until: number } | undefined;
}

/** The end of a background turn: final body and status, its output items, the lease released. */
export interface ResponseOutcome {
  readonly status: StoredStatus;
  readonly body: unknown;
  readonly output: ReadonlyArray<StoredItem>;
  /** Stream events still to append, in the same transaction (so the end is seen all at once). */
  readonly events?: { readonly fromSeq: number; readonly events: ReadonlyArray<unknown> } | undefined;
}

/** One link of a `previous_response_id` chain: what was sent, and what was answered. */
export interface ChainLink {
  readonly response: StoredResponse;
  readonly input: ReadonlyArray<StoredItem>;
  readonly output: ReadonlyArray<StoredItem>;
}

export interface PageQuery {
  readonly limit: number;
  readonly order: "asc" | "desc";
  /** Item id: start after it (in `order`). */
  readonly after?: string | undefined;
  /** Item id: stop before it (in `order`). */
  readonly before?: string | undefined;
}

export interface Page<T> {
  readonly data: ReadonlyArray<T>;
  readonly hasMore: boolean;
}

export interface StoredEvent {
  readonly seq: number;
  readonly body: unknown;
}

/**
 * Where a conversation autocreated from a client's own name (`PROXY_CONVERSATIONS_AUTOCREATE`) is
 * stored: names are per owner, so one caller can neither learn nor take another's. The client keeps
 * using its name; only the store sees this id.
 */
/**
 * Whether a client's id can name a stored object at all: PostgreSQL cannot hold a NUL character in
 * text, so an id with one names nothing on any store (checked before a turn runs, not at the save).
 */
export const isStorableId = (id: string): boolean => !id.includes("\u0000");

export const autocreatedConversationId = (owner: string, name: string): string => `auto:${owner}:${name}`;

export interface StoredConversation {
  readonly id: string;
  readonly owner: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly metadata: Readonly<Record<string, string>>;
}

export interface ResponseStore {
  /** Stores a response with its items and events (one transaction); an existing id is an error. */
  createResponse(response: NewResponse): Promise<void>;
  getResponse(owner: string, id: string): Promise<StoredResponse | undefined>;
  /** Deletes a response with its items and events; false when it does not exist for this owner. */
  deleteResponse(owner: string, id: string): Promise<boolean>;
  /** The chain ending at `id`, oldest first; undefined when any link is missing for this owner. */
  readChain(owner: string, id: string): Promise<ReadonlyArray<ChainLink> | undefined>;
  listInputItems(owner: string, id: string, page: PageQuery): Promise<Page<StoredItem> | undefined>;
  /** Any item (response input/output or conversation item) this owner stored, by item id. */
  getItem(owner: string, itemId: string): Promise<unknown>;

  /** Appends stream events of a running turn; `events[i]` gets sequence number `fromSeq + i`. */
  appendEvents(id: string, fromSeq: number, events: ReadonlyArray<unknown>): Promise<void>;
  readEvents(owner: string, id: string, afterSeq: number): Promise<ReadonlyArray<StoredEvent>>;

  /**
   * Extends the lease of a turn this `holder` runs. Undefined when the lease was lost (the turn was
   * failed by a reaper or deleted); otherwise whether a cancel was requested.
   */
  renewLease(
    id: string,
    holder: string,
    until: number,
  ): Promise<{ readonly cancelRequested: boolean } | undefined>;
  /**
   * A `queued` background turn this `holder` runs has begun: status `in_progress`, with that body.
   * False when it is no longer queued (already finished, cancelled, or its lease lost).
   */
  markInProgress(id: string, holder: string, body: unknown): Promise<boolean>;
  /** Marks an unfinished response to be cancelled; the updated record, or undefined when absent. */
  requestCancel(owner: string, id: string): Promise<StoredResponse | undefined>;
  /** Records the end of a background turn if `holder` still holds it (false: it lost the lease). */
  finishResponse(id: string, holder: string, outcome: ResponseOutcome): Promise<boolean>;
  /** Unfinished responses whose lease ended before `now` (their process died). */
  expiredLeases(now: number): Promise<ReadonlyArray<StoredResponse>>;
  /**
   * Fails an unfinished response whose lease is still expired at `now` (one replica wins); `events`
   * gets the next free sequence number and returns the closing stream events.
   */
  failExpired(
    id: string,
    now: number,
    outcome: ResponseOutcome,
    events: (firstSeq: number) => ReadonlyArray<unknown>,
  ): Promise<boolean>;

  createConversation(conversation: StoredConversation, items: ReadonlyArray<StoredItem>): Promise<void>;
  getConversation(owner: string, id: string): Promise<StoredConversation | undefined>;
  updateConversation(
    owner: string,
    id: string,
    metadata: Readonly<Record<string, string>>,
  ): Promise<StoredConversation | undefined>;
  deleteConversation(owner: string, id: string): Promise<boolean>;
  /** Appends items in order; false when the conversation does not exist for this owner. */
  appendConversationItems(owner: string, id: string, items: ReadonlyArray<StoredItem>): Promise<boolean>;
  listConversationItems(owner: string, id: string, page: PageQuery): Promise<Page<StoredItem> | undefined>;
  /** Every item of a conversation, oldest first (history of a new turn). */
  readConversation(owner: string, id: string): Promise<ReadonlyArray<StoredItem> | undefined>;
  getConversationItem(owner: string, id: string, itemId: string): Promise<StoredItem | undefined>;
  deleteConversationItem(owner: string, id: string, itemId: string): Promise<boolean>;

  /** Deletes responses and conversations whose retention ended before `now`; how many went. */
  purgeExpired(now: number): Promise<number>;
  close(): Promise<void>;
}
