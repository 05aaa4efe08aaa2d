CREATE TABLE `renditions` (
	`video_id` text NOT NULL,
	`type` text NOT NULL,
	`quality` text NOT NULL,
	`status` text NOT NULL,
	`width` integer NOT NULL,
	`height` integer NOT NULL,
	`bandwidth` integer NOT NULL,
	`codecs` text,
	`position` integer NOT NULL,
	PRIMARY KEY(`video_id`, `type`, `quality`),
	FOREIGN KEY (`video_id`) REFERENCES `videos`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `upload_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`environment` text NOT NULL,
	`ttl` integer NOT NULL,
	`created_at` text NOT NULL,
	`expires_at_ms` integer,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `upload_tokens_scope` ON `upload_tokens` (`project_id`,`environment`);--> statement-breakpoint
CREATE TABLE `videos` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`environment` text NOT NULL,
	`title` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`public` integer DEFAULT true NOT NULL,
	`panoramic` integer DEFAULT false NOT NULL,
	`mp4_support` integer DEFAULT true NOT NULL,
	`player_id` text,
	`tags` text DEFAULT '[]' NOT NULL,
	`metadata` text DEFAULT '[]' NOT NULL,
	`language` text,
	`language_origin` text,
	`transcript` integer DEFAULT false NOT NULL,
	`transcript_summary` integer DEFAULT false NOT NULL,
	`transcript_summary_attributes` text,
	`source_type` text,
	`live_stream_id` text,
	`source_name` text,
	`ingest_status` text,
	`filesize` integer,
	`upload_state` text,
	`upload_correlation` text,
	`playable` integer DEFAULT false NOT NULL,
	`probe` text,
	`encoding_error` text,
	`thumbnail_at` real,
	`thumbnail_custom` integer DEFAULT false NOT NULL,
	`has_thumbnail` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`expires_at` integer,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `videos_scope` ON `videos` (`project_id`,`environment`);--> statement-breakpoint
CREATE INDEX `videos_live` ON `videos` (`live_stream_id`);--> statement-breakpoint
CREATE INDEX `videos_correlation` ON `videos` (`upload_correlation`);--> statement-breakpoint
CREATE INDEX `videos_expiry` ON `videos` (`expires_at`);