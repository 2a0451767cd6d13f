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
  stream: boolean;
  toolCalls: number;
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
  /** What the client received: its text, its calls. */
  readonly output: { text: string[]; calls: Array<{ name: string; id: string; arguments: string }> };
  errorBody?: unknown;
  /** Bytes of recorded text, as counted against the log's bound. */
  bytes: number;
  /** Still in the log (a record pushed out keeps being written by its request, uncounted). */
  held: boolean;
}

export interface RequestLogLimits {
  readonly maxRequests: number;
  readonly maxBytes: number;
}

export type RecordListener = (record: RequestRecord, event: "new" | "done") => void;

/**
 * The recent requests, newest last, bounded by count and by recorded bytes: the oldest go first.
 * A request still running may be dropped too (its recorder keeps writing into a record nobody
 * holds any more), so the bound holds while requests stream.
 */
export const createRequestLog = (limits: RequestLogLimits) => {
  const records: RequestRecord[] = [];
  const listeners = new Set<RecordListener>();
  let bytes = 0;
  let seq = 0;
  /** A single request may hold a quarter of the bytes: one huge answer cannot empty the log. */
  const perRequestBytes = Math.max(1024, Math.floor(limits.maxBytes / 4));

  const evict = () => {
    while (records.length > limits.maxRequests || (bytes > limits.maxBytes && records.length > 1)) {
      const old = records.shift();
      if (old) {
        bytes -= old.bytes;
        old.held = false;
      }
    }
  };

  return {
    open(fields: Pick<RequestRecord, "requestId" | "at" | "method" | "path">): RequestRecord {
      const record: RequestRecord = {
        ...fields,
        seq: ++seq,
        route: fields.path,
        surface: "",
        keyName: "",
        status: 0,
        done: false,
        model: "",
        stream: false,
        toolCalls: 0,
        repairs: 0,
        rejected: 0,
        retries: 0,
        finish: "",
        error: "",
        timings: {},
        attempts: [],
        decisions: [],
        output: { text: [], calls: [] },
        bytes: 0,
        held: true,
      };
      records.push(record);
      evict();
      for (const l of listeners) l(record, "new");
      return record;
    },
    /** Counts `n` more recorded bytes against the record; false when its share is used up. */
    grow(record: RequestRecord, n: number): boolean {
      if (record.bytes + n > perRequestBytes) return false;
      record.bytes += n;
      if (record.held) {
        bytes += n;
        evict();
      }
      return true;
    },
    finish(record: RequestRecord): void {
      record.done = true;
      for (const l of listeners) l(record, "done");
    },
    /** Newest first. */
    list: (): ReadonlyArray<RequestRecord> => records.slice().reverse(),
    get: (seqNo: number) => records.find((r) => r.seq === seqNo),
    bytes: () => bytes,
    subscribe(listener: RecordListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
};

export type RequestLog = ReturnType<typeof createRequestLog>;
