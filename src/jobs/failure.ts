// How a job's failure is put into words: for users (a video's or summary's failure reason) and for
// the log.

/** An error's message, for the log. */
export const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * What users are told of a failure nobody foresaw: a fixed sentence. The error's own message (a
 * file system error names server paths) goes to the log only.
 */
export const serverFault = (what: string): string => `${what} failed because of a server error; the server's log has the details.`;
