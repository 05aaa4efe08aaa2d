CREATE TABLE `media_processes` (
	`id` text PRIMARY KEY NOT NULL,
	`pid` integer NOT NULL,
	`start_ticks` integer NOT NULL,
	`boot_id` text NOT NULL,
	`tool` text NOT NULL,
	`exe` text NOT NULL,
	`owner_pid` integer NOT NULL,
	`owner_start_ticks` integer NOT NULL,
	`started_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `media_processes_owner` ON `media_processes` (`owner_pid`);