CREATE TABLE `changes` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project` text NOT NULL,
	`kind` text NOT NULL,
	`ids` text NOT NULL,
	`at` text,
	CONSTRAINT "changes_kind_check" CHECK(kind in ('items', 'journal', 'review', 'run', 'project', 'purge'))
);
--> statement-breakpoint
CREATE INDEX `changes_at_idx` ON `changes` (`at`);