/**
 * The queue URL: what `--executor` and `hermit worker --redis` accept and refuse (a password,
 * PostgreSQL, a bad database or queue name), what connection it makes, and an unreachable
 * Redis as a clear QUEUE_UNAVAILABLE exit instead of a hang.
 */
import { spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { queueTarget } from "../../src/executors/queue/connection.js";
import { executorUrl } from "../../src/train/settings/kinds.js";
import { repoRoot } from "../helpers.js";
import { ensureBuilt } from "../train/helpers.js";

const parse = (raw: string) => () => executorUrl.parse(raw, "/", {});

describe("the executor setting", () => {
  it("takes local or a redis URL, and refuses what would leak or cannot work", () => {
    expect(parse("local")()).toBe("local");
    expect(parse("redis://10.0.0.5:6380/2?queue=team-a")()).toBe("redis://10.0.0.5:6380/2?queue=team-a");
    expect(parse("redis://ci:secret@host:6379")).toThrow(/password, which run\.json would record; .*HERMIT_REDIS_PASSWORD/);
    expect(parse("postgres://host/db")).toThrow(/postgres:\/\/ is not supported.*docs\/queue\.md/);
    expect(parse("redis://host:6379/cache")).toThrow(/database 'cache'; a Redis database is a number/);
    expect(parse("redis://host?queue=a:b")).toThrow(/queue 'a:b'/);
    expect(parse("redis://host?db=1")).toThrow(/unknown parameter 'db'/);
    expect(parse("http://host")).toThrow(/'local' or a redis:\/\//);
    expect(parse("remote")).toThrow(/'local' or a queue URL/);
  });

  it("becomes BullMQ's connection: password from the environment, TLS for rediss, the queue name", () => {
    const target = queueTarget("rediss://ci@redis.example:6390/3?queue=team-a", undefined, { HERMIT_REDIS_PASSWORD: "pw" });
    expect(target.connection).toEqual({ host: "redis.example", port: 6390, db: 3, username: "ci", password: "pw", tls: {}, maxRetriesPerRequest: null });
    expect(target.queue).toBe("team-a");
    expect(target.shown).not.toContain("pw");
    expect(queueTarget("redis://h", "other", {}).queue).toBe("other");
    expect(queueTarget("redis://h", undefined, {}).connection).toEqual({ host: "h", port: 6379, db: 0, maxRetriesPerRequest: null });
    expect(() => queueTarget("redis://h", "a:b", {})).toThrow(/queue name 'a:b'/);
  });
});

describe("hermit worker with no Redis to reach", () => {
  beforeAll(ensureBuilt, 180_000);

  it("exits 1 with QUEUE_UNAVAILABLE naming the server, not a hang", async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => resolve(free));
      });
    });
    const result = spawnSync(process.execPath, [join(repoRoot, "dist", "cli.js"), "worker", "--redis", `redis://127.0.0.1:${port}`], { encoding: "utf8", timeout: 60_000 });
    expect(result.status, result.stderr).toBe(1);
    // One line per distinct connection error, not one per reconnect attempt.
    expect(result.stderr.match(/queue error: connect ECONNREFUSED/g)).toHaveLength(1);
    expect(result.stderr).toMatch(new RegExp(`QUEUE_UNAVAILABLE: could not reach Redis at redis://127\\.0\\.0\\.1:${port} \\(queue hermit-rollouts\\) within 15 s: .*ECONNREFUSED`));
  }, 60_000);

  it("refuses bad flags with exit 2", () => {
    const run = (...args: string[]) => spawnSync(process.execPath, [join(repoRoot, "dist", "cli.js"), "worker", ...args], { encoding: "utf8" });
    expect(run("--redis", "redis://u:p@h").stderr).toMatch(/USAGE: queue URL 'redis:\/\/u:p@h' holds a password/);
    expect(run("--redis", "redis://h", "--concurrency", "0").status).toBe(2);
    expect(run("--redis", "redis://h", "--stall-timeout", "soon").stderr).toMatch(/--stall-timeout: 'soon'/);
  });
});
