// Shapes of what the dashboard reads: admin API (snake_case) and main API (camelCase) objects.

export type Environment = "sandbox" | "production";

export interface Session {
  expires_at: string;
  urls: { production: string; sandbox: string; admin: string; rtmp: string };
}

export interface Project {
  project_id: string;
  created_at: string;
  name: string;
  deletes_at: string | null;
  region: string;
  deleted: boolean;
  production_enabled: boolean;
}

export interface ApiKey {
  project_id: string;
  api_key_id: string;
  created_at: string;
  name: string;
  value: string;
  environment: Environment;
}

export interface AdminList<T> {
  items: T[];
  pagination: { page: number; page_size: number; item_count: number };
  links: { rel: string; href: string }[];
}

export interface MainList<T> {
  data: T[];
  pagination: { currentPage: number; pageSize: number; pagesTotal: number; itemsTotal: number; currentPageItems: number };
}

export interface Video {
  videoId: string;
  title: string;
  createdAt: string;
  deletesAt: string | null;
  assets: { player: string; hls: string; thumbnail: string; mp4?: string; iframe: string };
}

export interface Quality {
  type: "hls" | "mp4";
  quality: string;
  status: "waiting" | "encoding" | "encoded" | "failed";
}

export interface VideoOverview {
  video: Video;
  ingest: "uploading" | "uploaded" | "ingesting" | "ingested" | null;
  playable: boolean;
  thumbnail: boolean;
  failureReason: string | null;
  qualities: Quality[];
}

export interface VideoStatus {
  ingest: { status?: string; filesize: number | null };
  encoding: {
    playable: boolean;
    qualities: Quality[];
    metadata: { width: number | null; height: number | null; duration: number | null; videoCodec: string | null; audioCodec: string | null; framerate: number | null };
    failureReason?: string | null;
  };
}

/** api.video's live-stream object. */
export interface LiveStream {
  liveStreamId: string;
  name: string;
  streamKey: string;
  public: boolean;
  broadcasting: boolean;
  createdAt?: string;
  assets?: { hls?: string; player?: string; iframe?: string; thumbnail?: string };
}

export interface Webhook {
  webhookId: string;
  createdAt: string;
  events: string[];
  url: string;
  signatureSecret: string;
}

export interface Delivery {
  deliveryId: string;
  event: string;
  status: "pending" | "delivered" | "failed";
  createdAt: string;
  attempts: { attemptedAt: string; statusCode: number | null; error: string | null; durationMs: number }[];
}

export interface DeliveryUsage {
  items: { collected_on: string; video_hls_duration_minutes: number; video_mp4_duration_minutes: number; live_stream_hls_duration_minutes: number }[];
}

export interface HostingUsage {
  items: { collected_on: string; video_duration_minutes: number }[];
}
