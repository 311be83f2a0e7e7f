/**
 * The services a rollout runs with on this machine: a `Session` on the version under test, a
 * deploy of it for a host, and acting through the run's actor host when it has one. The
 * Trainer's own process and `hermit worker` use the same ones.
 */
import { actingFor, type ActorSettings } from "../../acting/act.js";
import { deploy } from "../../deploy/deploy.js";
import { Session } from "../../runtime/session.js";
import type { RolloutServices } from "./context.js";

export function localServices(actor?: ActorSettings): RolloutServices {
  return {
    openSession: async (adapter, options) => new Session(adapter, options),
    deploy: (adapter, host, workspace) => deploy({ adapter, host, workspace }),
    ...(actor ? { acting: (rollout) => actingFor(actor, rollout) } : {}),
  };
}
