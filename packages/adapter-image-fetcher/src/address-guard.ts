import { BlockList, isIP } from "node:net";

/** Loopback, private, link-local (cloud metadata included), shared, reserved and multicast ranges. */
const NOT_PUBLIC: ReadonlyArray<readonly [string, number, "ipv4" | "ipv6"]> = [
  ["0.0.0.0", 8, "ipv4"],
  ["10.0.0.0", 8, "ipv4"],
  ["100.64.0.0", 10, "ipv4"],
  ["127.0.0.0", 8, "ipv4"],
  ["169.254.0.0", 16, "ipv4"],
  ["172.16.0.0", 12, "ipv4"],
  ["192.0.0.0", 24, "ipv4"],
  ["192.0.2.0", 24, "ipv4"],
  ["192.168.0.0", 16, "ipv4"],
  ["198.18.0.0", 15, "ipv4"],
  ["198.51.100.0", 24, "ipv4"],
  ["203.0.113.0", 24, "ipv4"],
  ["224.0.0.0", 4, "ipv4"],
  ["240.0.0.0", 4, "ipv4"],
  ["::", 128, "ipv6"],
  ["::1", 128, "ipv6"],
  ["::ffff:0:0", 96, "ipv6"],
  ["64:ff9b::", 96, "ipv6"],
  ["100::", 64, "ipv6"],
  ["2001:db8::", 32, "ipv6"],
  ["fc00::", 7, "ipv6"],
  ["fe80::", 10, "ipv6"],
  ["ff00::", 8, "ipv6"],
];

const family = (address: string): "ipv4" | "ipv6" => (isIP(address) === 6 ? "ipv6" : "ipv4");

/** `::ffff:10.0.0.1` is 10.0.0.1: judge an IPv4-mapped address by its IPv4 form. */
const unmapped = (address: string): string => {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m?.[1] ?? address;
};

export interface AddressGuard {
  /** May the gateway connect to `address` (an IP) that `host` resolved to? */
  allows(host: string, address: string): boolean;
}

/**
 * The SSRF guard for image fetches: only public addresses, unless the operator's allow-list
 * (`PROXY_IMAGE_FETCH_ALLOW`: host names, IPs or CIDRs) names the host or the address. It judges
 * resolved addresses, so a public name that resolves to a private address is refused too.
 */
export const createAddressGuard = (allowList: ReadonlyArray<string>): AddressGuard => {
  const blocked = new BlockList();
  for (const [net, prefix, type] of NOT_PUBLIC) blocked.addSubnet(net, prefix, type);
  const allowedAddresses = new BlockList();
  const allowedHosts = new Set<string>();
  for (const entry of allowList) {
    const [net, prefix] = entry.split("/");
    if (net !== undefined && isIP(net) !== 0) {
      if (prefix === undefined) allowedAddresses.addAddress(net, family(net));
      else allowedAddresses.addSubnet(net, Number(prefix), family(net));
    } else allowedHosts.add(entry.toLowerCase());
  }
  return {
    allows(host, address) {
      const ip = unmapped(address);
      if (allowedHosts.has(host.toLowerCase()) || allowedAddresses.check(ip, family(ip))) return true;
      return !blocked.check(ip, family(ip));
    },
  };
};
