import { noisePng } from "@proxy/adapter-codex-appserver/testing";
import { startImageServer as startServer } from "@proxy/adapter-image-fetcher/testing";

export { PNG } from "@proxy/adapter-image-fetcher/testing";

/** A 5 MB photo (see `noisePng`), made once. */
let photo: Buffer | undefined;
export const PHOTO = (): Buffer => {
  photo ??= noisePng(1300);
  return photo;
};

/** The image fetcher's test server, with the gateway tests' large photo at `/photo.png`. */
export const startImageServer = () =>
  startServer({
    "/photo.png": (res) => res.writeHead(200, { "content-type": "image/png" }).end(PHOTO()),
  });
