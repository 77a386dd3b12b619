CREATE TABLE `packet_audits` (
	`project` text NOT NULL,
	`packet_id` text NOT NULL,
	`run_id` text,
	`ranker_version` text NOT NULL,
	`request_sha256` text NOT NULL,
	`change_seq` integer NOT NULL,
	`first_served_at` text NOT NULL,
	`last_served_at` text NOT NULL,
	`times_served` integer NOT NULL,
	`sections` text NOT NULL,
	`audit` text NOT NULL,
	PRIMARY KEY(`project`, `packet_id`),
	FOREIGN KEY (`project`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `packet_audits_served_idx` ON `packet_audits` (`project`,`last_served_at`,`packet_id`);--> statement-breakpoint
CREATE INDEX `packet_audits_run_idx` ON `packet_audits` (`project`,`run_id`,`last_served_at`,`packet_id`);--> statement-breakpoint
CREATE INDEX `packet_audits_retention_idx` ON `packet_audits` (`last_served_at`);--> statement-breakpoint
CREATE TABLE `revocations` (
	`id` text PRIMARY KEY NOT NULL,
	`project` text NOT NULL,
	`target` text NOT NULL,
	`value` text NOT NULL,
	`reason` text NOT NULL,
	`revoked_by` text NOT NULL,
	`revoked_at` text NOT NULL,
	`lifted_by` text,
	`lifted_at` text,
	`lift_reason` text,
	FOREIGN KEY (`project`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "revocations_target_check" CHECK(target in ('evidence', 'source', 'source_prefix', 'item', 'agent'))
);
--> statement-breakpoint
CREATE INDEX `revocations_project_idx` ON `revocations` (`project`,`revoked_at`,`id`);--> statement-breakpoint
CREATE TABLE `tombstones` (
	`id` text PRIMARY KEY NOT NULL,
	`project` text NOT NULL,
	`item_id` text NOT NULL,
	`kind` text NOT NULL,
	`content_sha256` text NOT NULL,
	`reason` text NOT NULL,
	`forgotten_by` text NOT NULL,
	`forgotten_at` text NOT NULL,
	`lifted_by` text,
	`lifted_at` text,
	`lift_reason` text,
	FOREIGN KEY (`project`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "tombstones_kind_check" CHECK(kind in ('item', 'journal', 'authored'))
);
--> statement-breakpoint
CREATE INDEX `tombstones_project_idx` ON `tombstones` (`project`,`forgotten_at`,`id`);--> statement-breakpoint
CREATE INDEX `tombstones_active_hash_idx` ON `tombstones` (`project`,`content_sha256`) WHERE lifted_at is null;