import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** Whether this host has the Linux `/proc` the watchers below read. */
export const hasProcfs = (): boolean => {
  try {
    readFileSync("/proc/self/stat");
    return true;
  } catch {
    return false;
  }
};

/**
 * Minor page faults of `pid`'s reaped children (`cminflt` in `/proc/<pid>/stat`). Every process
 * that runs faults in pages, and a parent that reaps a child inherits its count (grandchildren's
 * included), so any program codex ran and waited for shows here: 0 means none ever did.
 */
export const reapedChildFaults = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the `(comm)` field, which may itself contain spaces: state is field 3, cminflt 11.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11 - 3]);
};

const read = (path: string): string => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
};
const list = (path: string): string[] => {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
};

const childrenOf = (pid: number): number[] =>
  list(`/proc/${pid}/task`).flatMap((tid) =>
    read(`/proc/${pid}/task/${tid}/children`).split(" ").filter(Boolean).map(Number),
  );

/** `0100007F:1F90` (little-endian IPv4 as /proc prints it) or its IPv6 form → `127.0.0.1:8080`. */
const endpoint = (hex: string): string => {
  const [addr = "", port = "0"] = hex.split(":");
  const p = Number.parseInt(port, 16);
  if (addr.length === 8) {
    const bytes = (addr.match(/../g) ?? []).map((b) => Number.parseInt(b, 16)).reverse();
    return `${bytes.join(".")}:${p}`;
  }
  return `[${addr}]:${p}`;
};

/** Remote endpoints of the sockets (inode → remote) in `pid`'s network namespace. */
const remotesByInode = (pid: number): Map<string, string> => {
  const out = new Map<string, string>();
  for (const proto of ["tcp", "tcp6", "udp", "udp6"]) {
    for (const line of read(`/proc/${pid}/net/${proto}`).split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      const remote = cols[2];
      const inode = cols[9];
      if (remote === undefined || inode === undefined || /^0+:0000$/.test(remote)) continue;
      out.set(inode, `${proto.startsWith("udp") ? "udp" : "tcp"} ${endpoint(remote)}`);
    }
  }
  return out;
};

export interface ProcessTreeReport {
  /** Command lines of every process seen below the root. */
  readonly processes: ReadonlyArray<string>;
  /** `tcp 127.0.0.1:4321`-style remote endpoints of sockets the tree had open. */
  readonly remotes: ReadonlyArray<string>;
}

/**
 * Samples a process tree every `intervalMs` until stopped: the processes below `root` and the
 * remote ends of every socket the tree holds. Sampling can miss what lives shorter than one
 * interval; pair it with `reapedChildFaults` for processes, and with an egress trap for traffic.
 */
export const watchProcessTree = (root: number, intervalMs = 5) => {
  const processes = new Map<number, string>();
  const remotes = new Set<string>();
  const sample = () => {
    const tree = [root];
    for (let i = 0; i < tree.length; i++) {
      for (const child of childrenOf(tree[i] as number)) {
        tree.push(child);
        if (!processes.has(child))
          processes.set(child, read(`/proc/${child}/cmdline`).replaceAll("\0", " ").trim());
      }
    }
    const sockets = new Set<string>();
    for (const pid of tree) {
      for (const fd of list(`/proc/${pid}/fd`)) {
        try {
          const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
          if (m?.[1]) sockets.add(m[1]);
        } catch {
          // the fd closed between readdir and readlink
        }
      }
    }
    if (sockets.size === 0) return;
    for (const [inode, remote] of remotesByInode(root)) if (sockets.has(inode)) remotes.add(remote);
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    stop(): ProcessTreeReport {
      clearInterval(timer);
      sample();
      return { processes: [...processes.values()], remotes: [...remotes] };
    },
  };
};

/**
 * A local HTTP(S) proxy that answers nothing and records every request or CONNECT it receives.
 * Point `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY` at it and any egress a process attempts through
 * the usual proxy variables (codex's HTTP client, git, curl) is seen here instead of leaving.
 */
export const startEgressTrap = async () => {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(403).end();
  });
  server.on("connect", (req, socket) => {
    hits.push(`CONNECT ${req.url}`);
    socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    hits: hits as ReadonlyArray<string>,
    /** The proxy variables (both cases) pointing at the trap, local addresses exempt. */
    env: (): Record<string, string> => {
      const env: Record<string, string> = {};
      for (const name of ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"]) {
        env[name] = url;
        env[name.toLowerCase()] = url;
      }
      env.NO_PROXY = env.no_proxy = "127.0.0.1,localhost";
      return env;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
