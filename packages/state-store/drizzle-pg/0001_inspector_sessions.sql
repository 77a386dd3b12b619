CREATE TABLE "inspector_sessions" (
	"id_hash" text COLLATE "C" PRIMARY KEY NOT NULL,
	"user_kind" text COLLATE "C" NOT NULL,
	"operator" text COLLATE "C",
	"operator_created_at" text COLLATE "C",
	"admin_fingerprint" text COLLATE "C",
	"expires_at" text COLLATE "C" NOT NULL,
	"created_at" text COLLATE "C" NOT NULL,
	CONSTRAINT "inspector_sessions_user_kind_check" CHECK (user_kind in ('admin', 'operator'))
);
--> statement-breakpoint
CREATE INDEX "inspector_sessions_expires_idx" ON "inspector_sessions" USING btree ("expires_at");