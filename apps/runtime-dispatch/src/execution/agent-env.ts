import type { WorkflowStep } from "../definitions/workflow.js";
import type { Run } from "../runs/runs.js";

/**
 * Variables an agent never inherits: the operator's hub credentials, the admin token and a named operator's token
 * included (an agent holding one could promote as that operator). Give an agent its own key instead.
 */
export const WITHHELD_ENV = ["KXM_AUTH_TOKEN", "KXM_OPERATOR_TOKEN", "KXM_AGENT_KEY"] as const;

/** The environment one step attempt's agent starts with: `base` less {@link WITHHELD_ENV}, plus the `KXM_*` it is told. */
export function agentEnv(
  base: NodeJS.ProcessEnv,
  run: Run,
  step: WorkflowStep,
  attempt: number,
  promptFile: string,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const name of WITHHELD_ENV) delete env[name];
  Object.assign(env, {
    KXM_RUN_ID: run.runId,
    KXM_STEP_ID: step.id,
    KXM_ATTEMPT: String(attempt),
    KXM_PROMPT_FILE: promptFile,
    KXM_ALLOWED_OUTCOMES: step.allowedOutcomes.join(","),
  });
  return env;
}
