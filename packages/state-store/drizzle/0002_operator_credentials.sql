CREATE TABLE `operator_credentials` (
	`key_hash` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` text NOT NULL,
	`revoked_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `operator_credentials_active_name_idx` ON `operator_credentials` (`name`) WHERE revoked_at is null;