CREATE TABLE `inspector_sessions` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`user_kind` text NOT NULL,
	`operator` text,
	`operator_created_at` text,
	`admin_fingerprint` text,
	`expires_at` text NOT NULL,
	`created_at` text NOT NULL,
	CONSTRAINT "inspector_sessions_user_kind_check" CHECK(user_kind in ('admin', 'operator'))
);
--> statement-breakpoint
CREATE INDEX `inspector_sessions_expires_idx` ON `inspector_sessions` (`expires_at`);