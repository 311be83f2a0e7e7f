/**
 * `hostTask({...})`: the common shape of a Task acted by a real host — instances with starting
 * files and a prompt, one host turn each, a scoring function over the workspace the host left.
 * A turn that could not be measured (the host timed out, was killed, exited non-zero or did
 * not start) is a `null` score with the reason as feedback, never a 0, and says the rollout
 * `failed` (`timeout` or `error`), so the Trainer retries it and never reuses it as a result.
 */
import type { ActRequest } from "./act.js";
import { unmeasured } from "./headless.js";
import { trainerUsage } from "./usage.js";
import type { ActResult, AdapterUse, HostUsage } from "./types.js";

/** What a host task's rollout needs from the Trainer's rollout context. */
export interface ActingContext {
  act(request: ActRequest): Promise<ActResult>;
  signal: AbortSignal;
  evidenceDir: string;
}

/** What a scorer returns. `score: null`: could not be measured. */
export interface HostScore {
  score: number | null;
  feedback?: string;
}

/** What the rollout returns: the score, the feedback, the usage and the adapter-use evidence. */
export interface HostRolloutResult extends HostScore {
  usage?: { inputTokens?: number; outputTokens?: number; costUsd?: number };
  /** Why the usage or its cost is unknown, when it is. */
  usageUnknown?: string;
  /** The turn's tokens in the model layer's shape. */
  tokens?: HostUsage;
  adapterUse?: AdapterUse;
  /** The host failed (crashed, exited non-zero, ran out of time): the score is null. */
  failed?: { status: "error" | "timeout"; reason: string };
}

export interface HostTaskOptions<Instance extends { id: string }, InstancesArgs extends unknown[]> {
  name: string;
  instances(...args: InstancesArgs): Instance[] | Promise<Instance[]>;
  /** The prompt of an instance. */
  prompt: string | ((instance: Instance) => string);
  /** The starting files of an instance's workspace: relative path → contents. */
  files(instance: Instance): Readonly<Record<string, string | Uint8Array>> | Promise<Readonly<Record<string, string | Uint8Array>>>;
  /** The host; default: the run's actor host. */
  host?: string;
  /** The time limit of a turn (seconds or a duration); default: the run's actor timeout. */
  timeout?: number | string;
  /** Score a finished turn, e.g. by running the instance's tests in `result.workspace`. */
  score(result: ActResult, instance: Instance, context: ActingContext): HostScore | Promise<HostScore>;
  close?(): void | Promise<void>;
}

/** A Task whose rollouts are one host turn each. */
export interface HostTask<Instance extends { id: string }, InstancesArgs extends unknown[]> {
  name: string;
  /** Its rollouts act through a host: a run needs an actor. */
  acts: true;
  instances(...args: InstancesArgs): Instance[] | Promise<Instance[]>;
  rollout(instance: Instance, context: ActingContext): Promise<HostRolloutResult>;
  close?(): void | Promise<void>;
}

/** One line for the learner: did the agent use the adapter. */
export function adapterUseLine(use: AdapterUse): string {
  if (!use.used) return "adapter used: no (no skill read, no adapter tool called)";
  const parts = [
    use.skillsRead.length > 0 ? `skills read: ${use.skillsRead.join(", ")}` : "no skill read",
    use.toolsCalled.length > 0 ? `tools called: ${use.toolsCalled.join(", ")}` : "no adapter tool called",
  ];
  return `adapter used: yes (${parts.join("; ")})`;
}

export function hostTask<Instance extends { id: string }, InstancesArgs extends unknown[]>(
  options: HostTaskOptions<Instance, InstancesArgs>,
): HostTask<Instance, InstancesArgs> {
  return {
    name: options.name,
    acts: true,
    instances: (...args) => options.instances(...args),
    async rollout(instance, context) {
      const prompt = typeof options.prompt === "function" ? options.prompt(instance) : options.prompt;
      const result = await context.act({
        prompt,
        files: await options.files(instance),
        ...(options.host !== undefined ? { host: options.host } : {}),
        ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
      });
      const usage = trainerUsage(result.usage);
      const measured = {
        ...(usage ? { usage } : {}),
        ...(result.usageUnknown ? { usageUnknown: result.usageUnknown } : {}),
        ...(result.usage ? { tokens: result.usage } : {}),
        adapterUse: result.adapterUse,
      };
      const why = unmeasured(result);
      if (why !== undefined) {
        const failed = { status: result.timedOut ? ("timeout" as const) : ("error" as const), reason: why };
        return { score: null, feedback: `${why}\n${adapterUseLine(result.adapterUse)}`, ...measured, failed };
      }
      const scored = await options.score(result, instance, context);
      const feedback = [scored.feedback, adapterUseLine(result.adapterUse)].filter(Boolean).join("\n");
      return { score: scored.score, feedback, ...measured };
    },
    ...(options.close ? { close: options.close } : {}),
  };
}
