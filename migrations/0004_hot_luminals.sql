CREATE TABLE `captions` (
	`video_id` text NOT NULL,
	`language` text NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`generated` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`video_id`, `language`),
	FOREIGN KEY (`video_id`) REFERENCES `videos`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `chapters` (
	`video_id` text NOT NULL,
	`language` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`video_id`, `language`),
	FOREIGN KEY (`video_id`) REFERENCES `videos`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `chapters_video` ON `chapters` (`video_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `summaries` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`environment` text NOT NULL,
	`video_id` text NOT NULL,
	`origin` text NOT NULL,
	`source_status` text NOT NULL,
	`attributes` text NOT NULL,
	`abstract` text,
	`takeaways` text,
	`reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`video_id`) REFERENCES `videos`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `summaries_video` ON `summaries` (`video_id`);--> statement-breakpoint
CREATE INDEX `summaries_scope` ON `summaries` (`project_id`,`environment`,`created_at`);