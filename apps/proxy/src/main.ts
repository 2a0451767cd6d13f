// Entry point of `node dist/main.js`: configuration from the environment only (the bin, which `npm start` runs, is cli.ts).
import { main } from "./gateway.js";

await main();
