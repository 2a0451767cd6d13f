// Entry point of `npm start` / `node dist/main.js`: configuration from the environment.
import { main } from "./gateway.js";

await main();
