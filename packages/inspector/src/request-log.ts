/** Bytes a record costs besides its texts (numbers, timings, the object itself), counted for each. */
const RECORD_OVERHEAD = 512;

/** One decision of the parser, the call gate or the output guard, as the timeline shows it. */
export interface Decision {
  /** Milliseconds since the request arrived. */
  readonly atMs: number;
  readonly attempt: number;
  readonly kind: "call-found" | "call-accepted" | "call-rejected" | "attempt-end";
  readonly text: string;
}

/** One backend attempt: what it was sent and the model's text as it streamed. */
export interface AttemptRecord {
  readonly attempt: number;
  readonly mode: string;
  request?: unknown;
  /** The raw model text, in the pieces it arrived in (bounded per request). */
  readonly raw: string[];
  rawTruncated: boolean;
  end?: string;
}

/** Everything the inspector keeps of one request; bodies only when they are recorded. */
export interface RequestRecord {
  readonly seq: number;
  readonly requestId: string;
  /** Epoch milliseconds of arrival. */
  readonly at: number;
  readonly method: string;
  readonly path: string;
  route: string;
  surface: string;
  keyName: string;
  status: number;
  done: boolean;
  model: string;
  /** How the backend was asked for tools: `native`, `prompt`, or "" before any attempt. */
  mode: string;
  stream: boolean;
  toolCalls: number;
  /** The names of the calls the client received, in order (the first few). */
  calls: string[];
  repairs: number;
  rejected: number;
  retries: number;
  finish: string;
  error: string;
  timings: { turnStartMs?: number; backendStartMs?: number; firstTokenMs?: number; totalMs?: number };
  usage?: unknown;
  client?: unknown;
  readonly attempts: AttemptRecord[];
  readonly decisions: Decision[];
  /** The hosted web searches the model provider ran (their queries only with bodies on). */
  readonly searches: Array<{ atMs: number; attempt: number; id: string; query: string }>;
  /** What the client received: its text, its calls. */
  readonly output: { text: string[]; calls: Array<{ name: string; id: string; arguments: string }> };
  errorBody?: unknown;
  /** Bytes of everything the record keeps, as counted against the log's bound. */
  bytes: number;
  /** Still in the log (a record pushed out keeps being written by its request, uncounted). */
  held: boolean;
}

export interface RequestLogLimits {
  readonly maxRequests: number;
  readonly maxBytes: number;
}

export type RecordListener = (record: RequestRecord, event: "new" | "done") => void;

/** Which of the log's two rings a record goes to: requests the key check let in, or refused ones. */
export type RecordKind = "kept" | "refused";

/** Refused requests (no valid key) have a small ring of their own: they can never push out real ones. */
const refusedLimits = (limits: RequestLogLimits): RequestLogLimits => ({
  maxRequests: Math.min(limits.maxRequests, 50),
  maxBytes: Math.max(16_384, Math.floor(limits.maxBytes / 16)),
});

/** One ring of records, newest last, bounded by count and by counted bytes: the oldest go first. */
const createRing = (limits: RequestLogLimits) => {
  const records: RequestRecord[] = [];
  let bytes = 0;
  return {
    records,
    limits,
    /** A single request may hold a quarter of the bytes: one huge answer cannot empty the log. */
    perRequestBytes: Math.max(1024, Math.floor(limits.maxBytes / 4)),
    bytes: () => bytes,
    add(n: number) {
      bytes += n;
      while (records.length > limits.maxRequests || (bytes > limits.maxBytes && records.length > 1)) {
        const old = records.shift();
        if (old) {
          bytes -= old.bytes;
          old.held = false;
        }
      }
    },
  };
};
type Ring = ReturnType<typeof createRing>;

/**
 * The recent requests in two rings (see `RecordKind`), each bounded by count and by the bytes of
 * everything its records keep: every field is counted, not only recorded text. A request still
 * running may be dropped too (its recorder keeps writing into a record nobody holds any more), so
 * the bound holds while requests stream.
 */
export const createRequestLog = (limits: RequestLogLimits) => {
  const rings: Record<RecordKind, Ring> = {
    kept: createRing(limits),
    refused: createRing(refusedLimits(limits)),
  };
  const ringOf = new WeakMap<RequestRecord, Ring>();
  const listeners = new Set<RecordListener>();
  let seq = 0;

  return {
    /** A new record in the ring of its kind, counted at its base size. */
    open(
      fields: Pick<RequestRecord, "requestId" | "at" | "method" | "path">,
      kind: RecordKind,
    ): RequestRecord {
      const record: RequestRecord = {
        ...fields,
        seq: ++seq,
        route: fields.path,
        surface: "",
        keyName: "",
        status: 0,
        done: false,
        model: "",
        mode: "",
        stream: false,
        toolCalls: 0,
        calls: [],
        repairs: 0,
        rejected: 0,
        retries: 0,
        finish: "",
        error: "",
        timings: {},
        attempts: [],
        decisions: [],
        searches: [],
        output: { text: [], calls: [] },
        bytes: 0,
        held: true,
      };
      const ring = rings[kind];
      ringOf.set(record, ring);
      ring.records.push(record);
      record.bytes = RECORD_OVERHEAD + fields.requestId.length + fields.path.length * 2;
      ring.add(record.bytes);
      for (const l of listeners) l(record, "new");
      return record;
    },
    /** Counts `n` more recorded bytes against the record; false when its share is used up. */
    grow(record: RequestRecord, n: number): boolean {
      const ring = ringOf.get(record);
      if (ring === undefined || record.bytes + n > ring.perRequestBytes) return false;
      this.count(record, n);
      return true;
    },
    /** Counts `n` bytes of a bounded field the record always keeps (its model, its error). */
    count(record: RequestRecord, n: number): void {
      record.bytes += n;
      if (record.held) ringOf.get(record)?.add(n);
    },
    finish(record: RequestRecord): void {
      record.done = true;
      for (const l of listeners) l(record, "done");
    },
    /** Both rings, newest first. */
    list(): ReadonlyArray<RequestRecord> {
      const a = rings.kept.records;
      const b = rings.refused.records;
      const out: RequestRecord[] = [];
      let i = a.length - 1;
      let j = b.length - 1;
      while (i >= 0 || j >= 0) {
        const x = a[i];
        const y = b[j];
        if (y === undefined || (x !== undefined && x.seq > y.seq)) {
          out.push(x as RequestRecord);
          i--;
        } else {
          out.push(y);
          j--;
        }
      }
      return out;
    },
    get: (seqNo: number) =>
      rings.kept.records.find((r) => r.seq === seqNo) ?? rings.refused.records.find((r) => r.seq === seqNo),
    bytes: () => rings.kept.bytes() + rings.refused.bytes(),
    counts: () => ({ kept: rings.kept.records.length, refused: rings.refused.records.length }),
    refusedLimits: () => rings.refused.limits,
    subscribe(listener: RecordListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
};

export type RequestLog = ReturnType<typeof createRequestLog>;
