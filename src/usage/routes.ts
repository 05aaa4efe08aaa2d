import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import type { AdminGuard } from "../http/admin-auth";
import { adminErrors } from "../http/admin-list";
import { deliveryUsageReport, hostingUsageReport } from "./report";

const params = t.Object({ project_id: t.String() });
const query = t.Object({ interval: t.String(), environment: t.Optional(t.String()) }, { additionalProperties: false });

/** Admin API usage reports of a project. */
export function usageRoutes(app: AppContext, admin: AdminGuard) {
  return new Elysia({ prefix: "/projects/:project_id", normalize: false })
    .use(admin)
    .get("/delivery-usage", ({ params, query }) => deliveryUsageReport(app, params.project_id, query), {
      params, query,
      response: {
        200: t.Object({
          items: t.Array(t.Object({
            collected_on: t.String(),
            video_hls_duration_minutes: t.Number(),
            video_mp4_duration_minutes: t.Number(),
            live_stream_hls_duration_minutes: t.Number(),
          })),
        }),
        ...adminErrors,
      },
      detail: { summary: "Minutes served per day: interval=month (30 days) or week (7); environment narrows to one", tags: ["Usage"] },
    })
    .get("/hosting-usage", ({ params, query }) => hostingUsageReport(app, params.project_id, query), {
      params, query,
      response: { 200: t.Object({ items: t.Array(t.Object({ collected_on: t.String(), video_duration_minutes: t.Number() })) }), ...adminErrors },
      detail: { summary: "Minutes of video stored at the end of each day: interval=month (30 days) or week (7); environment narrows to one", tags: ["Usage"] },
    });
}
