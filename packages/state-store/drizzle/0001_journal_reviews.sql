CREATE TABLE `journal_reviews` (
	`entry_id` text PRIMARY KEY NOT NULL,
	`project` text NOT NULL,
	`reviewed_by` text NOT NULL,
	`reviewed_at` text NOT NULL,
	`evidence_refs` text,
	FOREIGN KEY (`entry_id`) REFERENCES `journal_entries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `journal_reviews_project_idx` ON `journal_reviews` (`project`,`reviewed_at`);