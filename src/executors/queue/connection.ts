/**
 * From a queue URL (`redis://[user@]host:port[/db][?queue=NAME]`, as `--executor` and
 * `hermit worker --redis` take it) to BullMQ's connection options and queue name. The password
 * never rides in the URL (it would be recorded in run.json and shown by `ps`): it comes from
 * `HERMIT_REDIS_PASSWORD`. Also: waiting for the first connection with a limit, so an
 * unreachable Redis is a clear QUEUE_UNAVAILABLE error instead of a silent hang.
 */
import { HermitError, errorMessage } from "../../errors.js";
import { QUEUE_NAME, SettingProblem, executorUrl } from "../../train/settings/kinds.js";

export const DEFAULT_QUEUE = "hermit-rollouts";

export interface QueueTarget {
  /** ioredis options as BullMQ takes them. */
  connection: { host: string; port: number; db: number; username?: string; password?: string; tls?: object; maxRetriesPerRequest: null };
  queue: string;
  /** The URL without credentials, for messages. */
  shown: string;
}

/** Parse `url` (a USAGE error when it is not one); `queue` overrides `?queue=`. */
export function queueTarget(url: string, queue?: string, env: NodeJS.ProcessEnv = process.env): QueueTarget {
  try {
    if (executorUrl.parse(url, "", {}) === "local") throw new SettingProblem("is 'local', not a queue URL");
  } catch (error) {
    if (error instanceof SettingProblem) throw new HermitError("USAGE", `queue URL '${url}' ${error.message}`, { url });
    throw error;
  }
  if (queue !== undefined && !QUEUE_NAME.test(queue)) throw new HermitError("USAGE", `queue name '${queue}' must be 1-64 letters, digits, '.', '_' or '-'`, { queue });
  const parsed = new URL(url);
  const password = env.HERMIT_REDIS_PASSWORD;
  const name = queue ?? parsed.searchParams.get("queue") ?? DEFAULT_QUEUE;
  return {
    connection: {
      host: parsed.hostname.replace(/^\[|\]$/g, ""),
      port: parsed.port === "" ? 6379 : Number(parsed.port),
      db: Number(parsed.pathname.replace(/^\//, "") || 0),
      ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
      ...(password ? { password } : {}),
      ...(parsed.protocol === "rediss:" ? { tls: {} } : {}),
      // Commands wait through a reconnect (a Redis restart) instead of failing after a few tries.
      maxRetriesPerRequest: null,
    },
    queue: name,
    shown: `${parsed.protocol}//${parsed.host}${parsed.pathname} (queue ${name})`,
  };
}

interface Connectable {
  waitUntilReady(): Promise<unknown>;
  on(event: "error", listener: (error: Error) => void): unknown;
}

/** Wait until every client is connected, at most `limitMs`; else QUEUE_UNAVAILABLE naming the server and its last error. */
export async function connected(clients: Connectable[], target: QueueTarget, limitMs = 15_000): Promise<void> {
  let last: unknown;
  for (const client of clients) client.on("error", (error) => (last = error));
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HermitError("QUEUE_UNAVAILABLE", `could not reach Redis at ${target.shown} within ${limitMs / 1000} s${last ? `: ${errorMessage(last)}` : ""}`, { queue: target.queue })), limitMs);
  });
  try {
    await Promise.race([Promise.all(clients.map((client) => client.waitUntilReady())), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
