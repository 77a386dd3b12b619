CREATE TABLE `history_floors` (
	`project` text PRIMARY KEY NOT NULL,
	`floor` integer NOT NULL,
	FOREIGN KEY (`project`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `item_contributors` (
	`project` text NOT NULL,
	`item_id` text NOT NULL,
	`agent` text NOT NULL,
	PRIMARY KEY(`project`, `item_id`),
	FOREIGN KEY (`project`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `item_contributors_agent_idx` ON `item_contributors` (`project`,`agent`);--> statement-breakpoint
CREATE TABLE `record_versions` (
	`project` text NOT NULL,
	`seq` integer NOT NULL,
	`kind` text NOT NULL,
	`record_id` text NOT NULL,
	`body` text,
	`forgotten` integer DEFAULT false NOT NULL,
	PRIMARY KEY(`project`, `kind`, `record_id`, `seq`),
	FOREIGN KEY (`project`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "record_versions_kind_check" CHECK(kind in ('item', 'entry'))
);
--> statement-breakpoint
CREATE INDEX `record_versions_seq_idx` ON `record_versions` (`project`,`seq`);--> statement-breakpoint
ALTER TABLE `packet_audits` ADD `inputs` text;--> statement-breakpoint
ALTER TABLE `revocations` ADD `created_seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `revocations` ADD `lifted_seq` integer;--> statement-breakpoint
ALTER TABLE `tombstones` ADD `created_seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `tombstones` ADD `lifted_seq` integer;--> statement-breakpoint
-- Seed (decision 0016): the history before this migration was not kept, so each record gets one version at the
-- feed head and each project's floor is the head (its earlier packets cannot be replayed). Rules lifted before
-- the migration were lifted by the head.
INSERT INTO `record_versions` (`project`, `seq`, `kind`, `record_id`, `body`, `forgotten`)
	SELECT `project`, (SELECT coalesce(max(`seq`), 0) FROM `changes`), 'item', `id`, `body`, 0 FROM `items`;--> statement-breakpoint
INSERT INTO `record_versions` (`project`, `seq`, `kind`, `record_id`, `body`, `forgotten`)
	SELECT `project`, (SELECT coalesce(max(`seq`), 0) FROM `changes`), 'entry', `id`, `body`, 0 FROM `journal_entries`;--> statement-breakpoint
INSERT INTO `history_floors` (`project`, `floor`) SELECT `id`, (SELECT coalesce(max(`seq`), 0) FROM `changes`) FROM `projects`;--> statement-breakpoint
UPDATE `revocations` SET `lifted_seq` = (SELECT coalesce(max(`seq`), 0) FROM `changes`) WHERE `lifted_at` IS NOT NULL;--> statement-breakpoint
UPDATE `tombstones` SET `lifted_seq` = (SELECT coalesce(max(`seq`), 0) FROM `changes`) WHERE `lifted_at` IS NOT NULL;
--> statement-breakpoint
-- Each proposal's agent, and the same agent for the value promoted from it (decision 0017).
INSERT INTO `item_contributors` (`project`, `item_id`, `agent`) SELECT `project`, `item_id`, `proposed_by` FROM `state_proposals`;--> statement-breakpoint
INSERT OR IGNORE INTO `item_contributors` (`project`, `item_id`, `agent`)
	SELECT `project`, `promoted_item_id`, `proposed_by` FROM `state_proposals` WHERE `promoted_item_id` IS NOT NULL;
