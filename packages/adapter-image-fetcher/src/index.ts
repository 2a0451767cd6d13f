export { type AddressGuard, createAddressGuard } from "./address-guard.js";
export { createImageFetcher, type ImageFetchOptions } from "./image-fetcher.js";
