CREATE TABLE `agent_credentials` (
	`key_hash` text PRIMARY KEY NOT NULL,
	`project` text NOT NULL,
	`agent_id` text NOT NULL,
	`created_at` text NOT NULL,
	`revoked_at` text,
	FOREIGN KEY (`project`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agent_credentials_active_agent_idx` ON `agent_credentials` (`project`,`agent_id`) WHERE revoked_at is null;--> statement-breakpoint
CREATE TABLE `items` (
	`project` text NOT NULL,
	`id` text NOT NULL,
	`kind` text NOT NULL,
	`status` text,
	`state_key` text,
	`valid_from` text,
	`valid_until` text,
	`created_at` text NOT NULL,
	`run_id` text,
	`body` text NOT NULL,
	PRIMARY KEY(`project`, `id`),
	FOREIGN KEY (`project`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`project`,`run_id`) REFERENCES `runs`(`project`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `items_state_key_idx` ON `items` (`project`,`state_key`,`status`);--> statement-breakpoint
CREATE INDEX `items_kind_idx` ON `items` (`project`,`kind`,`created_at`);--> statement-breakpoint
CREATE INDEX `items_retention_idx` ON `items` (`status`,`valid_until`);--> statement-breakpoint
CREATE INDEX `items_run_idx` ON `items` (`project`,`run_id`);--> statement-breakpoint
CREATE TABLE `journal_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`project` text NOT NULL,
	`run_id` text NOT NULL,
	`category` text NOT NULL,
	`stage` text,
	`created_at` text NOT NULL,
	`body` text NOT NULL,
	FOREIGN KEY (`project`,`run_id`) REFERENCES `runs`(`project`,`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `journal_project_created_idx` ON `journal_entries` (`project`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `journal_run_idx` ON `journal_entries` (`project`,`run_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `projects` (
	`id` text PRIMARY KEY NOT NULL,
	`checkout_root` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `runs` (
	`project` text NOT NULL,
	`id` text NOT NULL,
	`workflow` text NOT NULL,
	`status` text NOT NULL,
	`started_at` text NOT NULL,
	`finished_at` text,
	`failing_step` text,
	`lessons` text,
	PRIMARY KEY(`project`, `id`),
	FOREIGN KEY (`project`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "runs_status_check" CHECK(status in ('running', 'succeeded', 'failed', 'cancelled'))
);
--> statement-breakpoint
CREATE INDEX `runs_finished_idx` ON `runs` (`status`,`finished_at`);--> statement-breakpoint
CREATE TABLE `state_proposals` (
	`project` text NOT NULL,
	`item_id` text NOT NULL,
	`proposed_by` text NOT NULL,
	`promoted_by` text,
	`promoted_item_id` text,
	`closed_at` text,
	PRIMARY KEY(`project`, `item_id`),
	FOREIGN KEY (`project`,`item_id`) REFERENCES `items`(`project`,`id`) ON UPDATE no action ON DELETE cascade
);
