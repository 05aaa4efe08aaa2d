CREATE TABLE `dashboard_sessions` (
	`hash` text PRIMARY KEY NOT NULL,
	`admin_key_hash` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `dashboard_sessions_expiry` ON `dashboard_sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `delivery_usage` (
	`project_id` text NOT NULL,
	`environment` text NOT NULL,
	`day` text NOT NULL,
	`kind` text NOT NULL,
	`seconds` real NOT NULL,
	PRIMARY KEY(`project_id`, `environment`, `day`, `kind`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `hosting_usage` (
	`project_id` text NOT NULL,
	`environment` text NOT NULL,
	`day` text NOT NULL,
	`seconds` real NOT NULL,
	PRIMARY KEY(`project_id`, `environment`, `day`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
