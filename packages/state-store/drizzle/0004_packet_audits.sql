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
CREATE INDEX `packet_audits_retention_idx` ON `packet_audits` (`last_served_at`);