/** A row as the drivers return it: column name → value (pg returns BIGINT columns as strings). */
export type Row = Readonly<Record<string, unknown>>;

export type SqlParam = string | number | null;

/** What the store needs from a database: parameterised queries written with `?` placeholders. */
export interface SqlQuerier {
  all(sql: string, params?: ReadonlyArray<SqlParam>): Promise<ReadonlyArray<Row>>;
  /** Runs a statement; how many rows it changed. */
  run(sql: string, params?: ReadonlyArray<SqlParam>): Promise<number>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface SqlDriver extends SqlQuerier {
  readonly dialect: "sqlite" | "postgres";
  /** Runs `work` in one transaction that holds the migration lock for its whole length when `lock` is set. */
  transaction<T>(work: (tx: SqlQuerier) => Promise<T>, options?: { readonly lock?: boolean }): Promise<T>;
  close(): Promise<void>;
}
