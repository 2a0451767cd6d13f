export { type PostgresServer, startPostgresServer } from "./postgres-server.js";
