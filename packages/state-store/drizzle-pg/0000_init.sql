CREATE TABLE "agent_credentials" (
	"key_hash" text COLLATE "C" PRIMARY KEY NOT NULL,
	"project" text COLLATE "C" NOT NULL,
	"agent_id" text COLLATE "C" NOT NULL,
	"created_at" text COLLATE "C" NOT NULL,
	"revoked_at" text COLLATE "C"
);
--> statement-breakpoint
CREATE TABLE "change_head" (
	"one" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"seq" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "change_head_one_check" CHECK (one = 1)
);
--> statement-breakpoint
CREATE TABLE "changes" (
	"seq" bigint PRIMARY KEY NOT NULL,
	"project" text COLLATE "C" NOT NULL,
	"kind" text COLLATE "C" NOT NULL,
	"ids" text NOT NULL,
	"at" text COLLATE "C",
	CONSTRAINT "changes_kind_check" CHECK (kind in ('items', 'journal', 'review', 'run', 'project', 'purge'))
);
--> statement-breakpoint
CREATE TABLE "history_floors" (
	"project" text COLLATE "C" PRIMARY KEY NOT NULL,
	"floor" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "item_contributors" (
	"project" text COLLATE "C" NOT NULL,
	"item_id" text COLLATE "C" NOT NULL,
	"agent" text COLLATE "C" NOT NULL,
	CONSTRAINT "item_contributors_project_item_id_pk" PRIMARY KEY("project","item_id")
);
--> statement-breakpoint
CREATE TABLE "items" (
	"project" text COLLATE "C" NOT NULL,
	"id" text COLLATE "C" NOT NULL,
	"kind" text COLLATE "C" NOT NULL,
	"status" text COLLATE "C",
	"state_key" text COLLATE "C",
	"valid_from" text COLLATE "C",
	"valid_until" text COLLATE "C",
	"created_at" text COLLATE "C" NOT NULL,
	"run_id" text COLLATE "C",
	"body" text NOT NULL,
	CONSTRAINT "items_project_id_pk" PRIMARY KEY("project","id")
);
--> statement-breakpoint
CREATE TABLE "journal_entries" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"project" text COLLATE "C" NOT NULL,
	"run_id" text COLLATE "C" NOT NULL,
	"category" text COLLATE "C" NOT NULL,
	"stage" text COLLATE "C",
	"created_at" text COLLATE "C" NOT NULL,
	"body" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "journal_reviews" (
	"entry_id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"project" text COLLATE "C" NOT NULL,
	"reviewed_by" text COLLATE "C" NOT NULL,
	"reviewed_at" text COLLATE "C" NOT NULL,
	"evidence_refs" text
);
--> statement-breakpoint
CREATE TABLE "operator_credentials" (
	"key_hash" text COLLATE "C" PRIMARY KEY NOT NULL,
	"name" text COLLATE "C" NOT NULL,
	"created_at" text COLLATE "C" NOT NULL,
	"revoked_at" text COLLATE "C"
);
--> statement-breakpoint
CREATE TABLE "packet_audits" (
	"project" text COLLATE "C" NOT NULL,
	"packet_id" text COLLATE "C" NOT NULL,
	"run_id" text COLLATE "C",
	"ranker_version" text COLLATE "C" NOT NULL,
	"request_sha256" text COLLATE "C" NOT NULL,
	"change_seq" bigint NOT NULL,
	"first_served_at" text COLLATE "C" NOT NULL,
	"last_served_at" text COLLATE "C" NOT NULL,
	"times_served" integer NOT NULL,
	"sections" text NOT NULL,
	"audit" text NOT NULL,
	"inputs" text,
	CONSTRAINT "packet_audits_project_packet_id_pk" PRIMARY KEY("project","packet_id")
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"checkout_root" text COLLATE "C",
	"created_at" text COLLATE "C" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "record_versions" (
	"project" text COLLATE "C" NOT NULL,
	"seq" bigint NOT NULL,
	"kind" text COLLATE "C" NOT NULL,
	"record_id" text COLLATE "C" NOT NULL,
	"body" text COLLATE "C",
	"forgotten" boolean DEFAULT false NOT NULL,
	CONSTRAINT "record_versions_project_kind_record_id_seq_pk" PRIMARY KEY("project","kind","record_id","seq"),
	CONSTRAINT "record_versions_kind_check" CHECK (kind in ('item', 'entry'))
);
--> statement-breakpoint
CREATE TABLE "revocations" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"project" text COLLATE "C" NOT NULL,
	"target" text COLLATE "C" NOT NULL,
	"value" text COLLATE "C" NOT NULL,
	"reason" text COLLATE "C" NOT NULL,
	"revoked_by" text COLLATE "C" NOT NULL,
	"revoked_at" text COLLATE "C" NOT NULL,
	"lifted_by" text COLLATE "C",
	"lifted_at" text COLLATE "C",
	"lift_reason" text COLLATE "C",
	"created_seq" bigint DEFAULT 0 NOT NULL,
	"lifted_seq" bigint,
	CONSTRAINT "revocations_target_check" CHECK (target in ('evidence', 'source', 'source_prefix', 'item', 'agent'))
);
--> statement-breakpoint
CREATE TABLE "runs" (
	"project" text COLLATE "C" NOT NULL,
	"id" text COLLATE "C" NOT NULL,
	"workflow" text COLLATE "C" NOT NULL,
	"status" text COLLATE "C" NOT NULL,
	"started_at" text COLLATE "C" NOT NULL,
	"finished_at" text COLLATE "C",
	"failing_step" text COLLATE "C",
	"lessons" text,
	CONSTRAINT "runs_project_id_pk" PRIMARY KEY("project","id"),
	CONSTRAINT "runs_status_check" CHECK (status in ('running', 'succeeded', 'failed', 'cancelled'))
);
--> statement-breakpoint
CREATE TABLE "state_proposals" (
	"project" text COLLATE "C" NOT NULL,
	"item_id" text COLLATE "C" NOT NULL,
	"proposed_by" text COLLATE "C" NOT NULL,
	"promoted_by" text COLLATE "C",
	"promoted_item_id" text COLLATE "C",
	"closed_at" text COLLATE "C",
	CONSTRAINT "state_proposals_project_item_id_pk" PRIMARY KEY("project","item_id")
);
--> statement-breakpoint
CREATE TABLE "tombstones" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"project" text COLLATE "C" NOT NULL,
	"item_id" text COLLATE "C" NOT NULL,
	"kind" text COLLATE "C" NOT NULL,
	"content_sha256" text COLLATE "C" NOT NULL,
	"reason" text COLLATE "C" NOT NULL,
	"forgotten_by" text COLLATE "C" NOT NULL,
	"forgotten_at" text COLLATE "C" NOT NULL,
	"lifted_by" text COLLATE "C",
	"lifted_at" text COLLATE "C",
	"lift_reason" text COLLATE "C",
	"created_seq" bigint DEFAULT 0 NOT NULL,
	"lifted_seq" bigint,
	CONSTRAINT "tombstones_kind_check" CHECK (kind in ('item', 'journal', 'authored'))
);
--> statement-breakpoint
ALTER TABLE "agent_credentials" ADD CONSTRAINT "agent_credentials_project_projects_id_fk" FOREIGN KEY ("project") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "history_floors" ADD CONSTRAINT "history_floors_project_projects_id_fk" FOREIGN KEY ("project") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "item_contributors" ADD CONSTRAINT "item_contributors_project_projects_id_fk" FOREIGN KEY ("project") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "items" ADD CONSTRAINT "items_project_projects_id_fk" FOREIGN KEY ("project") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "items" ADD CONSTRAINT "items_project_run_id_runs_project_id_fk" FOREIGN KEY ("project","run_id") REFERENCES "public"."runs"("project","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journal_entries" ADD CONSTRAINT "journal_entries_project_run_id_runs_project_id_fk" FOREIGN KEY ("project","run_id") REFERENCES "public"."runs"("project","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journal_reviews" ADD CONSTRAINT "journal_reviews_entry_id_journal_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."journal_entries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "packet_audits" ADD CONSTRAINT "packet_audits_project_projects_id_fk" FOREIGN KEY ("project") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "record_versions" ADD CONSTRAINT "record_versions_project_projects_id_fk" FOREIGN KEY ("project") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "revocations" ADD CONSTRAINT "revocations_project_projects_id_fk" FOREIGN KEY ("project") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_project_projects_id_fk" FOREIGN KEY ("project") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "state_proposals" ADD CONSTRAINT "state_proposals_project_item_id_items_project_id_fk" FOREIGN KEY ("project","item_id") REFERENCES "public"."items"("project","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tombstones" ADD CONSTRAINT "tombstones_project_projects_id_fk" FOREIGN KEY ("project") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "agent_credentials_active_agent_idx" ON "agent_credentials" USING btree ("project","agent_id") WHERE revoked_at is null;--> statement-breakpoint
CREATE INDEX "changes_at_idx" ON "changes" USING btree ("at");--> statement-breakpoint
CREATE INDEX "item_contributors_agent_idx" ON "item_contributors" USING btree ("project","agent");--> statement-breakpoint
CREATE INDEX "items_state_key_idx" ON "items" USING btree ("project","state_key","status");--> statement-breakpoint
CREATE INDEX "items_kind_idx" ON "items" USING btree ("project","kind","created_at");--> statement-breakpoint
CREATE INDEX "items_retention_idx" ON "items" USING btree ("status","valid_until");--> statement-breakpoint
CREATE INDEX "items_run_idx" ON "items" USING btree ("project","run_id");--> statement-breakpoint
CREATE INDEX "journal_project_created_idx" ON "journal_entries" USING btree ("project","created_at","id");--> statement-breakpoint
CREATE INDEX "journal_run_idx" ON "journal_entries" USING btree ("project","run_id","created_at");--> statement-breakpoint
CREATE INDEX "journal_reviews_project_idx" ON "journal_reviews" USING btree ("project","reviewed_at");--> statement-breakpoint
CREATE UNIQUE INDEX "operator_credentials_active_name_idx" ON "operator_credentials" USING btree ("name") WHERE revoked_at is null;--> statement-breakpoint
CREATE INDEX "packet_audits_served_idx" ON "packet_audits" USING btree ("project","last_served_at","packet_id");--> statement-breakpoint
CREATE INDEX "packet_audits_run_idx" ON "packet_audits" USING btree ("project","run_id","last_served_at","packet_id");--> statement-breakpoint
CREATE INDEX "packet_audits_retention_idx" ON "packet_audits" USING btree ("last_served_at");--> statement-breakpoint
CREATE INDEX "record_versions_seq_idx" ON "record_versions" USING btree ("project","seq");--> statement-breakpoint
CREATE INDEX "revocations_project_idx" ON "revocations" USING btree ("project","revoked_at","id");--> statement-breakpoint
CREATE INDEX "runs_finished_idx" ON "runs" USING btree ("status","finished_at");--> statement-breakpoint
CREATE INDEX "tombstones_project_idx" ON "tombstones" USING btree ("project","forgotten_at","id");--> statement-breakpoint
CREATE INDEX "tombstones_active_hash_idx" ON "tombstones" USING btree ("project","content_sha256") WHERE lifted_at is null;--> statement-breakpoint
INSERT INTO "change_head" ("one", "seq") VALUES (1, 0);
