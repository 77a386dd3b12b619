import type { RouteHandler } from "./types.js";

/** Starts a workflow run in the path's project. */
export const startRun: RouteHandler<"startRun"> = async ({ params, body, hub, log }) => {
  await hub.project(params.project);
  const run = await hub.store.startRun(
    {
      project: params.project,
      workflow: body.workflow,
      ...(body.runId === undefined ? {} : { runId: body.runId }),
    },
    hub.now(),
  );
  log.info({ event: "run_started", project: params.project, runId: run.id });
  return { run };
};

/** Finishes a run; its episode enters the project's pool through the change feed, before the next read. */
export const finishRun: RouteHandler<"finishRun"> = async ({ params, body, hub, log }) => {
  await hub.project(params.project);
  const finished = await hub.store.finishRun(
    {
      project: params.project,
      runId: params.runId,
      outcome: body.outcome,
      ...(body.failingStep === undefined ? {} : { failingStep: body.failingStep }),
      ...(body.lessons === undefined ? {} : { lessons: body.lessons }),
    },
    hub.now(),
  );
  log.info({
    event: "run_finished",
    project: params.project,
    runId: params.runId,
    outcome: finished.run.status,
    episodeId: finished.episode.id,
    lessons: body.lessons?.length ?? 0,
  });
  return finished;
};

/** Appends a journal entry to a run; its item enters the indexes of the roles that read its category. */
export const appendJournal: RouteHandler<"appendJournal"> = async ({ params, body, hub, log }) => {
  await hub.project(params.project);
  const entry = await hub.store.appendJournal(
    {
      project: params.project,
      runId: params.runId,
      category: body.category,
      summary: body.summary,
      ...(body.stage === undefined ? {} : { stage: body.stage }),
      ...(body.evidenceRefs === undefined ? {} : { evidenceRefs: body.evidenceRefs }),
      ...(body.manifest === undefined ? {} : { manifest: body.manifest }),
    },
    hub.now(),
  );
  log.info({
    event: "journal_appended",
    project: params.project,
    runId: params.runId,
    entryId: entry.id,
    category: entry.category,
    summaryChars: entry.summary.length,
    manifestItems: entry.manifest?.items.length ?? 0,
  });
  return { entry };
};

/** Episodes of finished runs, newest first, paged by the store's cursor. */
export const episodes: RouteHandler<"episodes"> = async ({ params, query, hub }) => {
  await hub.project(params.project);
  const page = await hub.store.listEpisodes(params.project, {
    limit: query.limit ?? 50,
    ...(query.runId === undefined ? {} : { runId: query.runId }),
    ...(query.cursor === undefined ? {} : { before: query.cursor }),
  });
  return page.nextCursor === undefined
    ? { items: page.items }
    : { items: page.items, nextCursor: page.nextCursor };
};
