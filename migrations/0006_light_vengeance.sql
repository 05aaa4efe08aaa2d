CREATE TABLE `analytics_play_totals` (
	`project_id` text NOT NULL,
	`environment` text NOT NULL,
	`media_id` text NOT NULL,
	`media_type` text NOT NULL,
	`plays` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`project_id`, `environment`, `media_id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `analytics_events` ADD `viewer` text DEFAULT '' NOT NULL;