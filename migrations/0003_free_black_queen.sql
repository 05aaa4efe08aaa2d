CREATE TABLE `live_broadcasts` (
	`id` text PRIMARY KEY NOT NULL,
	`live_stream_id` text NOT NULL,
	`project_id` text NOT NULL,
	`environment` text NOT NULL,
	`state` text NOT NULL,
	`part` integer NOT NULL,
	`pieces` text DEFAULT '[]' NOT NULL,
	`renditions` text DEFAULT '[]' NOT NULL,
	`recorded_ms` integer DEFAULT 0 NOT NULL,
	`started_at` text NOT NULL,
	`disconnected_at` integer,
	`video_id` text,
	`failure` text,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `live_broadcasts_stream` ON `live_broadcasts` (`live_stream_id`,`state`);--> statement-breakpoint
CREATE INDEX `live_broadcasts_state` ON `live_broadcasts` (`state`);--> statement-breakpoint
CREATE TABLE `live_streams` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`environment` text NOT NULL,
	`name` text NOT NULL,
	`stream_key` text NOT NULL,
	`public` integer DEFAULT true NOT NULL,
	`player_id` text,
	`restreams` text DEFAULT '[]' NOT NULL,
	`broadcasting` integer DEFAULT false NOT NULL,
	`thumbnail_custom` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `live_streams_stream_key_unique` ON `live_streams` (`stream_key`);--> statement-breakpoint
CREATE INDEX `live_streams_scope` ON `live_streams` (`project_id`,`environment`);