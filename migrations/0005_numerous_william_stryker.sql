CREATE TABLE `analytics_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` text NOT NULL,
	`environment` text NOT NULL,
	`session_id` text NOT NULL,
	`media_id` text NOT NULL,
	`media_type` text NOT NULL,
	`type` text NOT NULL,
	`emitted_at` integer NOT NULL,
	`watch_time` real DEFAULT 0 NOT NULL,
	`country` text DEFAULT 'unknown' NOT NULL,
	`continent` text DEFAULT 'unknown' NOT NULL,
	`device_type` text DEFAULT 'unknown' NOT NULL,
	`operating_system` text DEFAULT 'unknown' NOT NULL,
	`browser` text DEFAULT 'unknown' NOT NULL,
	`referrer` text DEFAULT '' NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `analytics_scope_time` ON `analytics_events` (`project_id`,`environment`,`emitted_at`);--> statement-breakpoint
CREATE INDEX `analytics_media` ON `analytics_events` (`media_id`,`emitted_at`);--> statement-breakpoint
CREATE INDEX `analytics_session` ON `analytics_events` (`session_id`);--> statement-breakpoint
CREATE TABLE `player_themes` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`environment` text NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`settings` text DEFAULT '{}' NOT NULL,
	`logo_format` text,
	`logo_link` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `player_themes_scope` ON `player_themes` (`project_id`,`environment`);--> statement-breakpoint
CREATE TABLE `private_sessions` (
	`session_hash` text PRIMARY KEY NOT NULL,
	`media_id` text NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `private_sessions_expiry` ON `private_sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `private_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`media_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`used_at` integer
);
--> statement-breakpoint
CREATE INDEX `private_tokens_media` ON `private_tokens` (`media_id`);--> statement-breakpoint
CREATE INDEX `private_tokens_created` ON `private_tokens` (`created_at`);--> statement-breakpoint
CREATE TABLE `watermarks` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`environment` text NOT NULL,
	`format` text NOT NULL,
	`width` integer NOT NULL,
	`height` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `watermarks_scope` ON `watermarks` (`project_id`,`environment`);--> statement-breakpoint
ALTER TABLE `videos` ADD `watermark` text;--> statement-breakpoint
ALTER TABLE `videos` ADD `clip` text;--> statement-breakpoint
ALTER TABLE `videos` ADD `import_from` text;--> statement-breakpoint
ALTER TABLE `videos` ADD `discarded_at` text;--> statement-breakpoint
ALTER TABLE `videos` ADD `purge_at` integer;--> statement-breakpoint
CREATE INDEX `videos_purge` ON `videos` (`purge_at`);