/**
 * The context one rollout attempt is given (`ctx` in `Task.rollout`). Every capability a task
 * can call on — opening a Session on the version under test, deploying it for a host — is built
 * here from the executor's services, and what it opened is closed when the attempt ends: its
 * sessions, and the workspaces its host turns (`ctx.act`) worked in, once the task has scored.
 */
import type { ActRollout, RolloutActing } from "../../acting/act.js";
import type { Session, SessionOptions } from "../../runtime/session.js";
import { noActor } from "../actor.js";
import { auditLogFor } from "../run-dir.js";
import type { RolloutContext } from "../types.js";
import type { RolloutJob } from "./executor.js";

/** What the process running a rollout provides. */
export interface RolloutServices {
  openSession(adapter: string, options: SessionOptions): Promise<Session>;
  deploy(adapter: string, host: string, workspace: string): Promise<unknown>;
  /** The acting scope of one rollout (`ctx.act`); absent when the run has no actor. */
  acting?(rollout: ActRollout): RolloutActing;
}

export interface AttemptContext {
  context: RolloutContext;
  /** Close what the attempt opened (sessions, acting workspaces); never throws. */
  close(): Promise<void>;
}

export function createRolloutContext(job: RolloutJob, services: RolloutServices, signal: AbortSignal): AttemptContext {
  const sessions: Session[] = [];
  let acting: RolloutActing | undefined;
  const context: RolloutContext = {
    adapter: job.adapterDir,
    tree: job.key.tree,
    split: job.split,
    trial: job.key.trial,
    step: job.step,
    evidenceDir: job.evidenceDir,
    signal,
    seed: job.seed,
    options: job.taskOptions,
    session: async (options) => {
      // The audit log sits beside the evidence directory, not in it: a sandboxed tool may write
      // its evidence directory, and must not be able to edit the record of its own calls.
      const session = await services.openSession(job.adapterDir, { ...options, evidence: job.evidenceDir, auditLog: auditLogFor(job.evidenceDir) });
      sessions.push(session);
      return session;
    },
    deploy: (host, workspace) => services.deploy(job.adapterDir, host, workspace),
    act: async (request) => {
      if (!services.acting) throw noActor();
      acting ??= services.acting({ adapter: job.adapterDir, evidenceDir: job.evidenceDir, auditLog: auditLogFor(job.evidenceDir), signal });
      return acting.act(request);
    },
  };
  const close = async () => {
    await Promise.all([...sessions.map((session) => session.close().catch(() => undefined)), acting?.close().catch(() => undefined)]);
  };
  return { context, close };
}
