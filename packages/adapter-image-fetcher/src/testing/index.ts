export { type ImageServer, PNG, startImageServer } from "./image-server.js";
